#pragma once

#include "common.h"

namespace toolwright::grammar::tool {

// Builds class slices of the vocabulary's prefix tree for a table of character classes, below
// the root and a sample of other nodes, by every construction (edge index, forward scan,
// reference descent), and checks they agree. Prints one JSON object; exit code 1 on a mismatch.
int run_slices(const LoadedVocab& vocab);

}  // namespace toolwright::grammar::tool
