#!/bin/sh
# The shader compiler and headers llama.cpp's Vulkan backend needs, on a Debian-family x86-64 host
# whose own are too old (Debian 12's glslc 2023.2 / glslang 12 lack GL_KHR_cooperative_matrix,
# which this llama.cpp commit's shaders use unconditionally).
#
# Downloads Debian 13 (trixie)'s glslc (shaderc 2025.2, glslang 15) with its C/C++ runtime, and the
# Vulkan 1.4 headers, from Debian's archive with apt-get (nothing is installed on the system), into
# OUT (default .cache/vulkan-tools), and writes OUT/glslc: a wrapper that runs trixie's glslc under
# trixie's own dynamic loader, so it works whatever the host's glibc. Then:
#
#   export TOOLWRIGHT_VULKAN_GLSLC="$PWD/.cache/vulkan-tools/glslc"
#   export TOOLWRIGHT_VULKAN_INCLUDE_DIR="$PWD/.cache/vulkan-tools/root/usr/include"
#   TOOLWRIGHT_VULKAN=1 npm run build:native        # or: node scripts/prebuild.mjs --variant vulkan
#
# The build also needs the host's Vulkan loader to link against (Debian: libvulkan-dev) and
# SPIR-V headers (spirv-headers). docs/gpu.md has the details.
set -eu
OUT="${1:-.cache/vulkan-tools}"
mkdir -p "$OUT/apt/lists/partial" "$OUT/apt/cache/archives/partial" "$OUT/debs" "$OUT/root"
OUT="$(cd "$OUT" && pwd)"
cat >"$OUT/apt/sources.list" <<EOF
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main
EOF
APT="-o Dir::Etc::SourceList=$OUT/apt/sources.list -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$OUT/apt/lists -o Dir::Cache=$OUT/apt/cache -o APT::Sandbox::User=root"
# shellcheck disable=SC2086
apt-get $APT update -qq
cd "$OUT/debs"
# shellcheck disable=SC2086
apt-get $APT download glslc libshaderc1 libc6 libstdc++6 libgcc-s1 libvulkan-dev
for deb in ./*.deb; do dpkg-deb -x "$deb" "$OUT/root"; done
LIB="$OUT/root/usr/lib/x86_64-linux-gnu"
cat >"$OUT/glslc" <<EOF
#!/bin/sh
exec "$LIB/ld-linux-x86-64.so.2" --library-path "$LIB" "$OUT/root/usr/bin/glslc" "\$@"
EOF
chmod +x "$OUT/glslc"
"$OUT/glslc" --version
echo "TOOLWRIGHT_VULKAN_GLSLC=$OUT/glslc"
echo "TOOLWRIGHT_VULKAN_INCLUDE_DIR=$OUT/root/usr/include"
