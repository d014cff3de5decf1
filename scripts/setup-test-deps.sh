#!/usr/bin/env bash
# Installs what the tests need on a fresh Debian machine, when missing:
#   chromium             headless browser for the e2e tests (SwiftShader WebGPU)
#   mesa-vulkan-drivers  lavapipe, the software Vulkan driver the GPU tests run on
#   libvulkan1           the Vulkan loader wgpu-native opens
#   gcc, libc6-dev       cgo, to link wgpu-native into bin/fkc and the GPU tests
# Only as root (apt); otherwise it says what is missing and goes on, and the
# tests that need the missing piece skip with that reason.
set -u
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1 || need+=(mesa-vulkan-drivers)
ldconfig -p 2>/dev/null | grep -q 'libvulkan.so.1' || need+=(libvulkan1)
command -v gcc >/dev/null 2>&1 || need+=(gcc libc6-dev)
if [ ${#need[@]} -eq 0 ]; then
  echo "setup: chromium, lavapipe, the Vulkan loader and gcc are present"
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
