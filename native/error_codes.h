#pragma once
// The codes of toolwright's errors (err.code), from the table shared with TypeScript.

namespace toolwright::codes {

#define TOOLWRIGHT_ERROR(name, code, when) inline constexpr const char* name = code;
#include "error_codes.def"
#undef TOOLWRIGHT_ERROR

}  // namespace toolwright::codes
