// Rule names of a GBNF grammar: every name stored once in one character arena, found through an
// open-addressing hash table. Replaces a std::map<std::string, id> whose long, shared-prefix
// names (converter output: "item-config-fields-item-0-s1-1") made every lookup a dozen memcmps
// and every new name an allocation.
//
// Ids follow llama.cpp's numbering: each new name, written or synthesized, gets the number of
// names so far. Synthesized names ("<rule>_<id>", for groups and repetitions) are not stored:
// written names cannot contain '_', so no written name can equal one and the parser never looks
// one up; find() and name() spell them out when asked.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace toolwright::grammar {

class SymbolTable {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  // A name as stored in the arena; stays valid (as offsets) while the table grows.
  struct NameRef {
    uint32_t offset = 0;
    uint32_t length = 0;
  };

  SymbolTable();
  // Room for about `names` names without rehashing.
  void reserve(size_t names);

  // Id of `name`, or kNone.
  uint32_t find(std::string_view name) const;
  // Id of `name`, adding it with id distinct_names() when absent.
  uint32_t intern(std::string_view name);
  // A new id for the synthesized name "<base>_<id>" (`base`: a stored name).
  uint32_t add_synthesized(NameRef base);

  // How many distinct names the table holds (the next id a new name gets).
  uint32_t distinct_names() const { return count_; }
  // One past the largest id handed out.
  uint32_t id_count() const { return static_cast<uint32_t>(names_.size()); }
  // The name of id `id`.
  std::string name(uint32_t id) const;
  // The name `id` was made from (its own name unless synthesized), as add_synthesized takes it.
  NameRef base_name(uint32_t id) const { return names_[id]; }
  // Where `name` (which must be in the table) is stored.
  NameRef stored_name(std::string_view name) const { return slots_[locate(name, hash_of(name))].name; }
  size_t memory_bytes() const {
    return arena_.capacity() + slots_.capacity() * sizeof(Slot) + names_.capacity() * sizeof(NameRef) +
           synthesized_.capacity();
  }
  std::string_view view(NameRef r) const { return std::string_view(arena_.data() + r.offset, r.length); }

 private:
  struct Slot {
    uint32_t hash = 0;
    uint32_t id = kNone;  // kNone: empty slot
    NameRef name;
  };
  std::string arena_;
  std::vector<Slot> slots_;
  std::vector<NameRef> names_;        // id -> name (the base name, for a synthesized one)
  std::vector<uint8_t> synthesized_;  // id -> 1 when synthesized
  uint32_t count_ = 0;
  uint32_t mask_ = 0;

  static uint32_t hash_of(std::string_view s);
  // The slot holding `name`, or the empty slot where it would go.
  size_t locate(std::string_view name, uint32_t hash) const;
  uint32_t add(std::string_view name, uint32_t hash, size_t slot);
  void assign_name(NameRef ref, bool synthesized);
  void rehash(size_t slots);
};

}  // namespace toolwright::grammar
