package judge

import (
	"fmt"
	"io"
	"os"

	"github.com/fkc-playground/fkc/tensor"
)

// WriteFile writes the report to path atomically, as fkc run writes its
// outputs (tensor.WriteFileAtomic): a failed write leaves any earlier
// report whole.
func WriteFile(path string, r *Report) error {
	data, err := Marshal(r)
	if err != nil {
		return err
	}
	return tensor.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// ReadFile reads a report from a file.
func ReadFile(path string) (*Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return r, nil
}
