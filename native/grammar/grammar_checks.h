// The whole-grammar checks Grammar::compile makes before building anything: which rules can be
// empty, which are reachable, and left recursion. Each pass is linear in the grammar (one flat
// edge array per graph, worklists instead of fixpoint sweeps), so a converter's 20,000-rule
// grammar costs what its size says.
#pragma once

#include <cstdint>
#include <vector>

#include "rule_table.h"

namespace toolwright::grammar {

// Rules with a literally empty alternative (llama.cpp's notion of "may be empty").
std::vector<uint8_t> literally_empty(const RuleTable& rules);

// Rules that can derive the empty string. Every rule reference must name a defined rule.
std::vector<uint8_t> derives_empty(const RuleTable& rules);

// Rules reachable from `root` (root included).
std::vector<uint8_t> reachable_from(const RuleTable& rules, uint32_t root);

// A cycle in the "can start with" graph over the rules in `include`: A -> B when B is referenced
// at the start of one of A's alternatives, after only `nullable` references. Fills `cycle` with
// the rules on it, first repeated at the end. Depth-first from rule 0 up, edges in text order.
bool find_left_cycle(const RuleTable& rules, const std::vector<uint8_t>& nullable,
                     const std::vector<uint8_t>& include, std::vector<uint32_t>& cycle);

// A left cycle that makes the stack grow: some reference on it is followed by more elements (so
// expanding it pushes a frame each time round). A cycle of tail references only revisits the
// same stacks, which llama.cpp (and this engine) stop on, so it is allowed.
bool find_growing_left_cycle(const RuleTable& rules, const std::vector<uint8_t>& nullable,
                             const std::vector<uint8_t>& include, std::vector<uint32_t>& cycle);

}  // namespace toolwright::grammar
