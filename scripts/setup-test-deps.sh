#!/usr/bin/env bash
# Installs what the tests need on a fresh Debian machine, when missing:
#   chromium             headless browser for the e2e tests (SwiftShader WebGPU)
#   mesa-vulkan-drivers  lavapipe, the software Vulkan driver the GPU tests run on
#   libvulkan1           the Vulkan loader wgpu-native opens
#   gcc, libc6-dev       cgo, to link wgpu-native into bin/fkc and the GPU tests
#   npm                  to install axe-core (e2e/package.json) for the accessibility checks
# Only as root (apt); otherwise it says what is missing and goes on, and the
# tests that need the missing piece skip with that reason.
set -u
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1 || need+=(mesa-vulkan-drivers)
ldconfig -p 2>/dev/null | grep -q 'libvulkan.so.1' || need+=(libvulkan1)
command -v gcc >/dev/null 2>&1 || need+=(gcc libc6-dev)
command -v npm >/dev/null 2>&1 || need+=(npm)
# axe-core (npm) for the accessibility checks of the e2e suite, pinned by
# e2e/package-lock.json; installed into e2e/node_modules.
axe() {
  [ -f e2e/node_modules/axe-core/axe.min.js ] && return 0
  command -v npm >/dev/null 2>&1 || { echo "setup: npm missing: the accessibility checks will skip" >&2; return 0; }
  echo "setup: npm ci (axe-core, for the e2e accessibility checks)"
  (cd e2e && npm ci --no-audit --no-fund --loglevel=error >/dev/null) || echo "setup: npm ci failed: the accessibility checks will skip" >&2
}
if [ ${#need[@]} -eq 0 ]; then
  echo "setup: chromium, lavapipe, the Vulkan loader, gcc and npm are present"
  axe
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "setup: missing ${need[*]} (not root or no apt-get): the tests that need them will skip" >&2
  exit 0
fi
echo "setup: installing ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${need[@]}" fonts-dejavu-core >/dev/null
axe
