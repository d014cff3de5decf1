module github.com/fkc-playground/fkc

go 1.26

require (
	github.com/andybalholm/brotli v1.3.0
	github.com/chromedp/cdproto v0.160.1
	github.com/chromedp/chromedp v0.23.1
	github.com/cogentcore/webgpu v0.23.0
	github.com/x448/float16 v0.8.4
	github.com/yuin/goldmark v1.8.7
	gopkg.in/yaml.v3 v3.0.1
)

require github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
