// SliceRegistry, part 3: building a grammar's slices with the grammar. A class the grammar
// repeats ([C]*, [C]+, [C]{m,n}, or a rule of such characters repeated) is looped on by the mask
// engine through a slice below the prefix tree's root; building it here moves its cost (up to a
// millisecond on a 128k vocabulary) from the first mask that enters the class to the compile.
#include <algorithm>
#include <memory>
#include <vector>

#include "grammar.h"
#include "slice.h"

namespace toolwright::grammar {

namespace {

// The mask engine takes a slice only for classes this wide (MaskEngine::kSliceMinSpan).
constexpr uint64_t kMinSpan = 16;
// Rule references followed when looking for what comes after a class.
constexpr int kFollowDepth = 4;

bool is_class_start(ElemType t) {
  return t == ElemType::Char || t == ElemType::CharNot || t == ElemType::CharAny;
}

// Whether class `k` can come right after element `q` (following rule references and rule ends
// kFollowDepth deep; empty alternatives are not looked through).
class Follow {
 public:
  explicit Follow(const Grammar& g) : g_(g), rule_of_(g.elems.size(), 0), refs_(g.rule_start.size()) {
    for (uint32_t r = 0; r < g.rule_start.size(); r++) {
      for (uint32_t p = g.rule_start[r]; p < g.elems.size(); p++) {
        rule_of_[p] = r;
        if (g.elems[p].type == ElemType::End) break;
      }
    }
    for (uint32_t p = 0; p < g.lone_ref_begin; p++) {  // lone references are in no rule
      if (g.elems[p].type == ElemType::RuleRef && g.elems[p].value < refs_.size())
        refs_[g.elems[p].value].push_back(p);
    }
  }

  // One question: each element is looked at once (a rule referenced from many places would
  // otherwise be followed once per path).
  bool follows(uint32_t q, uint32_t k) {
    if (++epoch_ == 0) {
      std::fill(seen_.begin(), seen_.end(), 0u);
      epoch_ = 1;
    }
    return can_follow(q, k, kFollowDepth);
  }

 private:
  bool can_follow(uint32_t q, uint32_t k, int depth) {
    const ElemType t = g_.elems[q].type;
    if (is_class_start(t)) return g_.class_at[q] == k;
    if (depth == 0 || seen_[q] == epoch_) return false;
    seen_[q] = epoch_;
    if (t == ElemType::RuleRef) {
      const uint32_t r = g_.elems[q].value;
      if (r >= g_.alt_starts.size()) return false;
      for (const uint32_t a : g_.alt_starts[r]) {
        if (can_follow(a, k, depth - 1)) return true;
      }
      return false;
    }
    if (t == ElemType::End || t == ElemType::Alt) {
      for (const uint32_t ref : refs_[rule_of_[q]]) {
        if (can_follow(ref + 1, k, depth - 1)) return true;
      }
    }
    return false;
  }

  const Grammar& g_;
  std::vector<uint32_t> rule_of_;
  std::vector<std::vector<uint32_t>> refs_;
  std::vector<uint32_t> seen_ = std::vector<uint32_t>(g_.elems.size(), 0u);
  uint32_t epoch_ = 0;
};

}  // namespace

size_t SliceRegistry::prebuild_for(const Grammar& grammar) {
  const Grammar& g = grammar;
  std::vector<uint8_t> broad(g.classes.size(), 0), done(g.classes.size(), 0);
  for (size_t k = 0; k < g.classes.size(); k++) {
    uint64_t span = 0;
    for (const auto& [lo, hi] : g.classes[k].accepts) span += static_cast<uint64_t>(hi) - lo + 1;
    broad[k] = span >= kMinSpan;
  }
  std::unique_ptr<Follow> follow;  // only for grammars with a broad class
  size_t built = 0;
  for (uint32_t p = 0; p < g.elems.size(); p++) {
    const uint32_t k = g.class_at[p];
    if (k == Grammar::kNoClass || !broad[k] || done[k]) continue;
    if (!follow) follow = std::make_unique<Follow>(g);
    if (!follow->follows(g.after_class[p], k)) continue;
    done[k] = 1;
    const uint32_t id = intern(g.classes[k].accepts);
    std::lock_guard<std::mutex> lock(mu_);
    const uint64_t before = builds_;
    get_locked(id, id, 0);
    built += builds_ - before;
  }
  return built;
}

}  // namespace toolwright::grammar
