// A model vocabulary preprocessed once for masking: every token's text decoded to code points
// (as llama.cpp's grammar decodes it) and the tokens laid out in a prefix tree so a shared
// prefix is matched once for all the tokens that start with it. Immutable; share it between
// every grammar and matcher of the model.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "slice.h"
#include "utf8.h"

namespace toolwright::grammar {

class Vocab {
 public:
  // `pieces[id]` is the token's text as llama_token_to_piece(..., special=true) renders it;
  // `eog` lists end-of-generation tokens (allowed exactly when the grammar can end).
  static std::shared_ptr<const Vocab> build(std::vector<std::string> pieces, const std::vector<int32_t>& eog);

  enum class Kind : uint8_t {
    Regular,    // in the prefix tree
    Eog,        // end of generation
    Never,      // empty text, text starting with NUL, or invalid UTF-8: never allowed
    Irregular,  // decodes to a NUL code point: checked on its own
  };

  // Prefix tree in preorder: the children of node n are n+1, nodes[n+1].end, ... up to
  // nodes[n].end; a subtree's tokens are one contiguous range of `tokens` / `partials`.
  struct Node {
    uint32_t cp;         // code point on the edge into this node
    uint32_t end;        // one past the last node of this subtree
    uint32_t tok_begin;  // own complete tokens: tokens[tok_begin, tok_own_end)
    uint32_t tok_own_end;
    uint32_t part_begin;  // own tokens ending in a partial UTF-8 sequence
    uint32_t part_own_end;
    uint32_t wide;  // for a node with many children: index into wide_nodes(), else kNotWide
  };
  static constexpr uint32_t kNotWide = UINT32_MAX;
  // Children of a wide node as parallel arrays sorted by code point, for range lookups.
  struct WideNode {
    uint32_t begin, end;  // into wide_child_nodes() / wide_child_cps()
  };
  struct PartialTail {
    int32_t token;
    PartialUtf8 partial;
  };

  size_t size() const { return pieces_.size(); }
  size_t n_words() const { return (pieces_.size() + 63) / 64; }
  const std::string& piece(int32_t id) const { return pieces_[id]; }
  Kind kind(int32_t id) const { return kinds_[id]; }
  bool is_eog(int32_t id) const { return kinds_[id] == Kind::Eog; }

  // Decoded code points of a token from a fresh start, up to (excluding) a NUL code point,
  // and the partial sequence it ends in.
  const uint32_t* cps(int32_t id) const { return &cp_pool_[cp_off_[id]]; }
  uint32_t n_cps(int32_t id) const { return cp_len_[id]; }
  PartialUtf8 tail(int32_t id) const { return tails_[id]; }

  const std::vector<Node>& nodes() const { return nodes_; }  // nodes_[0] is the root
  const std::vector<int32_t>& tokens() const { return tokens_; }
  // Code points of tokens()[i], in the same order (a slice's sweep reads them in order).
  const std::vector<uint32_t>& tokens_cps() const { return tokens_cps_; }
  const std::vector<PartialTail>& partials() const { return partials_; }
  // End of a subtree's token range (node index may be nodes().size()).
  uint32_t tok_range_end(uint32_t node_end) const {
    return node_end < nodes_.size() ? nodes_[node_end].tok_begin : static_cast<uint32_t>(tokens_.size());
  }
  uint32_t part_range_end(uint32_t node_end) const {
    return node_end < nodes_.size() ? nodes_[node_end].part_begin : static_cast<uint32_t>(partials_.size());
  }

  const std::vector<WideNode>& wide_nodes() const { return wide_nodes_; }
  const std::vector<uint32_t>& wide_child_nodes() const { return wide_child_nodes_; }
  const std::vector<uint32_t>& wide_child_cps() const { return wide_child_cps_; }

  const std::vector<int32_t>& eog_tokens() const { return eog_; }
  const std::vector<int32_t>& irregular_tokens() const { return irregular_; }
  // Tokens whose first byte is a UTF-8 continuation byte: the only ones that can follow a
  // token that ended inside a multi-byte character.
  const std::vector<int32_t>& continuation_tokens() const { return continuation_; }
  // Bitset of the prefix-tree tokens with at least one complete code point.
  const std::vector<uint64_t>& below_root_bits() const { return below_root_bits_; }
  // Per prefix-tree node: code points from the root (its depth), and its parent (the root's is 0).
  const std::vector<uint32_t>& node_depths() const { return node_depth_; }
  const std::vector<uint32_t>& node_parents() const { return node_parent_; }
  // The distinct code points on prefix-tree edges (sorted) and, for the k-th, the nodes whose
  // edge carries it (sorted): edge_nodes()[edge_offsets()[k], edge_offsets()[k + 1]).
  const std::vector<uint32_t>& edge_cps() const { return edge_cps_; }
  const std::vector<uint32_t>& edge_offsets() const { return edge_off_; }
  const std::vector<uint32_t>& edge_nodes() const { return edge_nodes_; }
  // Node bitsets (node_words() words each): nodes whose edge is ASCII code point c, and nodes
  // whose edge is not ASCII.
  size_t node_words() const { return (nodes_.size() + 63) / 64; }
  const uint64_t* ascii_edge_bits(uint32_t c) const { return &edge_bits_[c * node_words()]; }
  const uint64_t* non_ascii_edge_bits() const { return &edge_bits_[128 * node_words()]; }
  // ... and nodes whose edge is in one of these ASCII ranges, which classes often take (or leave)
  // whole: one bitset instead of one per code point when a slice is built.
  static constexpr uint32_t kAsciiBlocks = 4;
  static constexpr uint32_t kAsciiBlockRange[kAsciiBlocks][2] = {
      {0x00, 0x1F}, {'0', '9'}, {'A', 'Z'}, {'a', 'z'}};
  const uint64_t* ascii_block_bits(uint32_t b) const { return &edge_bits_[(129 + b) * node_words()]; }
  // Sets in `out` the tokens of `bits` at most `max_cps` code points long: one AND per word with a
  // precomputed row of tokens by length, and the few longer tokens checked one by one. (A class
  // repeated a bounded number of times takes the slice's tokens up to a length.)
  void or_up_to_length(const uint64_t* bits, uint32_t max_cps, uint64_t* out) const;
  // Rows of tokens by length: row L holds the prefix-tree tokens of at most L code points.
  static constexpr uint32_t kLengthRows = 24;
  // Prefix-tree node a regular token ends at.
  uint32_t token_node(int32_t id) const { return token_node_[id]; }
  size_t max_token_cps() const { return max_cps_; }
  // Largest code point on any prefix-tree edge.
  uint32_t max_code_point() const { return max_cp_; }
  // Lazily built class slices of the prefix tree, shared by all users of this vocabulary.
  SliceRegistry& slices() const { return *slices_; }
  size_t memory_bytes() const;

 private:
  std::vector<std::string> pieces_;
  std::vector<Kind> kinds_;
  std::vector<uint32_t> cp_pool_, cp_off_, cp_len_;
  std::vector<PartialUtf8> tails_;
  std::vector<Node> nodes_;
  std::vector<int32_t> tokens_;
  std::vector<uint32_t> tokens_cps_;
  std::vector<PartialTail> partials_;
  std::vector<WideNode> wide_nodes_;
  std::vector<uint32_t> wide_child_nodes_, wide_child_cps_;
  std::vector<int32_t> eog_, irregular_, continuation_;
  std::vector<uint64_t> below_root_bits_;
  std::vector<uint64_t> length_rows_;  // (kLengthRows + 1) rows of n_words()
  std::vector<int32_t> long_tokens_;   // prefix-tree tokens longer than kLengthRows, by length
  std::vector<uint32_t> token_node_;
  std::vector<uint32_t> node_depth_;
  std::vector<uint32_t> node_parent_;
  std::vector<uint32_t> edge_cps_, edge_off_, edge_nodes_;
  std::vector<uint64_t> edge_bits_;
  size_t max_cps_ = 0;
  uint32_t max_cp_ = 0;
  std::unique_ptr<SliceRegistry> slices_;
};

}  // namespace toolwright::grammar
