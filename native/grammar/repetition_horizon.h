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
//
// Better still, such a frame stands in the unbounded loop L ::= A L | ε (no token can reach the bound):
// the state after each character of the string is then the same state, whose mask is one slice, where the
// chain's rule of depth H + 2 still met a new state for every character of the first token. The grammar
// gets one such loop per repeated item of a deep chain when it is compiled (add_repetition_loops), unless
// it already has one (S* is rewritten to exactly that rule).
#pragma once

#include <cstdint>
#include <vector>

#include "grammar.h"

namespace toolwright::grammar {

// Appends to `g` (being compiled: its symbols, rules and alternatives built, classes not yet) one loop rule
// per distinct repeated item of the chains deeper than kMinLoopDepth, where `g` has no loop of that item.
// The loops are reachable from no rule; RepetitionHorizon moves frames into them.
void add_repetition_loops(Grammar& g);
constexpr uint32_t kMinLoopDepth = 16;

class RepetitionHorizon {
 public:
  // `horizon`: the most code points one token can add (the longest token, plus a pending character).
  RepetitionHorizon(const Grammar& g, uint32_t horizon);

  // No chain deeper than the horizon: map() is the identity.
  bool empty() const { return map_.empty(); }
  // The position standing for `pos` within the horizon (itself unless it lies in a rule of a chain deeper
  // than the horizon: then its place in the loop of the chain's item, or else in the rule at the cap).
  uint32_t map(uint32_t pos) const { return pos < map_.size() ? map_[pos] : pos; }
  // Depth of the rule `map()` moves deep frames to (a repetition allowing more copies than this is cut).
  uint32_t cap() const { return cap_; }

 private:
  uint32_t cap_;
  std::vector<uint32_t> map_;  // position -> position, or empty
};

}  // namespace toolwright::grammar
