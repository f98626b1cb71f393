// The CMake switches scripts/build-native.mjs passes from environment variables (cmakeDefines): each
// variable turns its option on or off, unset or empty leaves the build folder's setting alone.
import { describe, expect, test } from "vitest";
import { cmakeDefines } from "../../scripts/build-native.mjs";

describe("cmakeDefines", () => {
  test.each([
    [{}, []],
    [{ TOOLWRIGHT_AMX: "1" }, ["--CDTOOLWRIGHT_AMX=ON"]],
    [{ TOOLWRIGHT_AMX: "off" }, ["--CDTOOLWRIGHT_AMX=OFF"]],
    [{ TOOLWRIGHT_AMX: "" }, []],
    [{ TOOLWRIGHT_CUDA: "ON", TOOLWRIGHT_PORTABLE: "0" }, ["--CDGGML_CUDA=ON", "--CDTOOLWRIGHT_PORTABLE=OFF"]],
    [
      { TOOLWRIGHT_RPC: "no", TOOLWRIGHT_BUILD_BENCH: "yes" },
      ["--CDTOOLWRIGHT_BUILD_BENCH=ON", "--CDTOOLWRIGHT_RPC=OFF"],
    ],
    [{ TOOLWRIGHT_VULKAN_GLSLC: "/opt/glslc" }, ["--CDVulkan_GLSLC_EXECUTABLE=/opt/glslc"]],
  ])("%j -> %j", (env, expected) => {
    expect(cmakeDefines(env)).toEqual(expected);
  });
});
