// A bounded repetition S{m,n} is rewritten (as llama.cpp does) into a chain of rules, one per optional
// copy left: R1 ::= S | ε, then Rk ::= S R(k-1) | ε. Each character of a long bounded string is a new rule,
// so the parser state after k characters is new at every k, and so was its mask: a 30-token string under
// maxLength 1024 computed 30 fresh masks where an unbounded one hits the cache after the first.
//
// A token has at most H code points (the vocabulary's longest). Two frames at the same place in Rj and Rk
// accept the same next H code points when j and k both exceed H + 1 (at most H of those copies can be
// non-empty before the token ends), and the same below them. So for a mask every such frame can stand at
// its place in the chain's rule of depth H + 2, and states that differ only in how many copies are left
// beyond the horizon share one mask.
#pragma once

#include <cstdint>
#include <vector>

#include "grammar.h"

namespace toolwright::grammar {

class RepetitionHorizon {
 public:
  // `horizon`: the most code points one token can add (the longest token, plus a pending character).
  RepetitionHorizon(const Grammar& g, uint32_t horizon);

  // No chain deeper than the horizon: map() is the identity.
  bool empty() const { return map_.empty(); }
  // The position standing for `pos` within the horizon (itself unless it lies in a rule of a chain deeper
  // than the horizon).
  uint32_t map(uint32_t pos) const { return pos < map_.size() ? map_[pos] : pos; }
  // Depth of the rule `map()` moves deep frames to (a repetition allowing more copies than this is cut).
  uint32_t cap() const { return cap_; }

 private:
  uint32_t cap_;
  std::vector<uint32_t> map_;  // position -> position, or empty
};

}  // namespace toolwright::grammar
