# toolwright's addon is built with CMake, not gyp: llama.cpp is a CMake project (many generated
# sources, per-CPU variants, optional CUDA/Metal/Vulkan backends) that gyp cannot build sensibly.
# The real build is scripts/build-native.mjs (cmake-js on CMakeLists.txt), run by the npm
# `install` hook (scripts/install.mjs).
#
# This file is only a fallback for tools that run `node-gyp rebuild` themselves: its single
# action runs the CMake build in build/cmake (node-gyp owns build/) and copies the addon to
# build/Release/toolwright.node, where the loader looks for it.
{
  "targets": [
    {
      "target_name": "toolwright",
      "type": "none",
      "actions": [
        {
          "action_name": "build_with_cmake",
          "inputs": ["CMakeLists.txt"],
          "outputs": ["build/Release/toolwright.node"],
          "action": ["node", "scripts/build-native.mjs", "--out", "build/cmake", "--copy-to", "build/Release/toolwright.node"]
        }
      ]
    }
  ]
}
