// Precomputed "class slices" of the vocabulary prefix tree.
//
// (A slice may take its first edge from a narrower set than the rest, for a state whose first
// character is restricted but which then loops on a broad class.)
//
// Inside a JSON string (or any broad character class repeated) nearly every token is allowed,
// so walking the prefix tree would visit nearly all of it at every step. A slice for a code
// point set L and a tree node n lists, once per vocabulary, what lies below n along edges in
// L: the tokens made only of L characters (by length), the tokens that end in a partial UTF-8
// sequence on such a path, and the "exits" (an edge leaving L, with the depth where it
// leaves). A mask then takes all L-only tokens short enough in one bitset OR and checks only
// the exits against the grammar. Built lazily, shared by every grammar on the vocabulary; the
// constructions (slice_build.cc) keep the first use of a class to a fraction of a millisecond.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "utf8.h"

namespace toolwright::grammar {

class Vocab;
class Grammar;

// A set of code points as sorted disjoint inclusive intervals.
struct CodeSet {
  std::vector<std::pair<uint32_t, uint32_t>> intervals;
  uint64_t ascii[2] = {0, 0};

  bool contains(uint32_t cp) const {
    if (cp < 128) return (ascii[cp >> 6] >> (cp & 63)) & 1;
    size_t lo = 0, hi = intervals.size();
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      if (intervals[mid].second < cp)
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo < intervals.size() && intervals[lo].first <= cp;
  }
};

struct Slice {
  uint32_t max_depth = 0;       // longest path below the node made of L edges
  uint32_t max_exit_depth = 0;  // the most L code points before an exit
  // Complete tokens wholly in L below the node, sorted by depth (code points below the node):
  // depth d (1-based) is tokens()[depth_end()[d-1], depth_end()[d]); depth_end()[0] = 0. A slice
  // built with its bitset first makes these lists on first use (most uses need the bitset only).
  const std::vector<int32_t>& tokens() const {
    ensure_tokens();
    return tokens_;
  }
  const std::vector<uint32_t>& depth_end() const {
    ensure_tokens();
    return depth_end_;
  }
  size_t n_tokens = 0;
  // For slices with many tokens: the bitset of all of them (empty otherwise). Those up to a depth
  // are taken by ANDing it with the vocabulary's rows of tokens by length (Vocab::or_up_to_length).
  std::vector<uint64_t> all_bits;

  struct Partial {
    uint32_t depth;
    int32_t token;
    PartialUtf8 partial;
    int32_t skel;  // skeleton node it hangs off
  };
  std::vector<Partial> partials;  // sorted by partial sequence, then depth

  // Exits grouped by code point, then by depth (code points of L consumed below the node
  // before the exit edge, at least 1): one grammar step decides a whole run. Edges leaving L
  // straight from the node itself are not listed; the mask walks those by code-point range.
  struct ExitGroup {
    uint32_t cp;
    uint32_t run_begin, run_end;  // into runs
  };
  struct ExitRun {
    uint32_t depth;
    uint32_t begin, end;  // into exit_children
  };
  std::vector<ExitGroup> groups;  // sorted by code point
  std::vector<ExitRun> runs;      // sorted by depth within a group
  std::vector<uint32_t> exit_children;

  // Skeleton, for states that loop on the class through several states: the class-path nodes
  // that lead to an exit or a partial token, parents first (parent -1 = the slice's node). A
  // mask steps the grammar along these few nodes only.
  std::vector<int32_t> skel_parent;
  std::vector<uint32_t> skel_cp, skel_node;
  struct SkelExit {
    int32_t skel;  // skeleton node the exit edge leaves from
    uint32_t cp, child;
  };
  std::vector<SkelExit> skel_exits;  // sorted by skel

  size_t bytes() const;

 private:
  friend class SliceRegistry;
  mutable std::vector<int32_t> tokens_;
  mutable std::vector<uint32_t> depth_end_;
  mutable std::once_flag tokens_once_;
  bool tokens_lazy_ = false;
  const Vocab* vocab_ = nullptr;  // for the lazy lists: a token's depth is its length minus base_depth_
  uint32_t base_depth_ = 0;
  void ensure_tokens() const {
    if (tokens_lazy_) std::call_once(tokens_once_, [this] { build_tokens(); });
  }
  void build_tokens() const;
};

class SliceRegistry {
 public:
  explicit SliceRegistry(const Vocab& vocab) : vocab_(vocab) {}

  // Id of a code point set (intervals sorted, disjoint; clipped to the vocabulary's code points).
  uint32_t intern(const std::vector<std::pair<uint32_t, uint32_t>>& intervals);
  const CodeSet& set(uint32_t id);
  // The slice below `node` whose first edge is in set `first_set` and later edges in set
  // `rest_set` (often the same set), built on first use; nullptr once the registry is over
  // its memory budget.
  std::shared_ptr<const Slice> get(uint32_t first_set, uint32_t rest_set, uint32_t node);

  // Builds the root slices of `grammar`'s broad classes now (with the grammar, once per
  // vocabulary) rather than in the first mask that enters one; returns how many were built.
  size_t prebuild_for(const Grammar& grammar);

  // The body of a JSON string as JSON-Schema converters write it: [^"\\\x7F\x00-\x1F]
  // (llama.cpp's) and [^"\\\x00-\x1F] (toolwright's, which lets DEL through).
  static std::vector<std::pair<uint32_t, uint32_t>> json_string_chars();
  static std::vector<std::pair<uint32_t, uint32_t>> json_string_chars_with_del();

  // For tests: builds the slice below `node` by every construction (edge index, forward scan,
  // reference descent) and compares them; "" when all agree, else what differs.
  struct SelfCheckTimes {
    double walk_us, scan_us, exclusion_us;
  };
  std::string self_check(uint32_t first_set, uint32_t rest_set, uint32_t node,
                         SelfCheckTimes* times = nullptr);

  // Slices built so far (walks of the prefix tree or derivations; for profiling).
  uint64_t builds() {
    std::lock_guard<std::mutex> lock(mu_);
    return builds_;
  }

 private:
  const Vocab& vocab_;
  std::mutex mu_;
  std::map<std::vector<std::pair<uint32_t, uint32_t>>, uint32_t> set_ids_;
  std::vector<std::unique_ptr<CodeSet>> sets_;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::shared_ptr<const Slice>> slices_;
  size_t bytes_ = 0;
  uint64_t builds_ = 0;

  struct Exit3 {
    uint32_t cp, depth, child;
  };
  struct Parts {
    std::vector<std::pair<uint32_t, int32_t>> tokens;  // (depth, token)
    // Or, from build_by_exclusion(), the tokens as a bitset: how many, the deepest, and the
    // depth of the slice's node.
    bool direct = false;
    std::vector<uint64_t> bits;
    size_t n_bits = 0;
    uint32_t bits_max_depth = 0, base_depth = 0;
    std::vector<Slice::Partial> partials;
    std::vector<Exit3> exits;
    std::vector<int32_t> skel_parent;
    std::vector<uint32_t> skel_cp, skel_node;
    std::vector<Slice::SkelExit> skel_exits;
  };
  std::shared_ptr<const Slice> get_locked(uint32_t first_set, uint32_t rest_set, uint32_t node);
  std::shared_ptr<const Slice> build(const CodeSet& first, const CodeSet& rest, uint32_t node);
  std::shared_ptr<const Slice> build_by_exclusion(const CodeSet& first, const CodeSet& rest, uint32_t node);
  std::shared_ptr<const Slice> build_by_scan(const CodeSet& first, const CodeSet& rest, uint32_t node);
  std::shared_ptr<const Slice> build_by_walk(const CodeSet& first, const CodeSet& rest, uint32_t node) const;
  template <typename F>
  void for_each_gap(const CodeSet& set, F&& f) const;
  uint64_t non_ascii_outside(const CodeSet& set) const;
  static constexpr uint32_t kNarrowAscii = 32;
  void start_marks();
  std::vector<uint64_t> outside_;  // build_by_exclusion(): node bitset of edges outside the class
  void mark_path(uint32_t x, uint32_t root, const uint32_t* parent, std::vector<uint32_t>& skel);
  // build(): node -> epoch it joined the skeleton, and its index there.
  std::vector<uint32_t> mark_;
  std::vector<int32_t> skel_index_;
  uint32_t mark_epoch_ = 0;
  std::shared_ptr<const Slice> derive(const Slice& base, const CodeSet& first, const CodeSet& rest,
                                      uint32_t node) const;
  std::shared_ptr<const Slice> finish(Parts parts) const;
  std::shared_ptr<const Slice> finish_skeleton(Parts parts, std::vector<uint32_t> skel, uint32_t root);
  static bool is_subset(const CodeSet& a, const CodeSet& b);
};

}  // namespace toolwright::grammar
