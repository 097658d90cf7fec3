// Pike VM: runs all NFA threads in lock step over the text, so each input position is
// looked at once per live instruction. Without captures a thread is just a program
// counter, and a sparse set per step de-duplicates them.

#include <cstdint>
#include <vector>

#include "kube/apiserver/schema/regex.hpp"
#include "kube/apiserver/schema/utf8.hpp"

namespace kueuepp::kube::schema {
namespace {

// A set of program counters with O(1) insert, membership and clear.
class SparseSet {
 public:
  void reset(std::size_t capacity) {
    if (sparse_.size() < capacity) {
      sparse_.resize(capacity);
      dense_.resize(capacity);
    }
    size_ = 0;
  }
  bool contains(std::uint32_t pc) const {
    std::uint32_t i = sparse_[pc];
    return i < size_ && dense_[i] == pc;
  }
  void insert(std::uint32_t pc) {
    sparse_[pc] = static_cast<std::uint32_t>(size_);
    dense_[size_++] = pc;
  }
  void clear() { size_ = 0; }
  std::size_t size() const { return size_; }
  std::uint32_t operator[](std::size_t i) const { return dense_[i]; }

 private:
  std::vector<std::uint32_t> sparse_;
  std::vector<std::uint32_t> dense_;
  std::size_t size_ = 0;
};

bool is_word_byte(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

// Scratch space reused across calls on the same thread: matching allocates nothing
// once warm. (search() never re-enters itself, so one set of buffers per thread is enough.)
struct Scratch {
  SparseSet current;
  SparseSet next;
  std::vector<std::uint32_t> stack;
};

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

class Vm {
 public:
  Vm(const std::vector<Regex::Inst>& prog, const std::vector<Regex::Range>& ranges, std::string_view text)
      : prog_(prog), ranges_(ranges), text_(text) {}

  bool assertion_holds(Regex::Assertion a, std::size_t pos) const {
    switch (a) {
      case Regex::Assertion::BeginText:
        return pos == 0;
      case Regex::Assertion::EndText:
        return pos == text_.size();
      case Regex::Assertion::BeginLine:
        return pos == 0 || text_[pos - 1] == '\n';
      case Regex::Assertion::EndLine:
        return pos == text_.size() || text_[pos] == '\n';
      case Regex::Assertion::WordBoundary:
      case Regex::Assertion::NotWordBoundary: {
        bool before = pos > 0 && is_word_byte(text_[pos - 1]);
        bool after = pos < text_.size() && is_word_byte(text_[pos]);
        return (before != after) == (a == Regex::Assertion::WordBoundary);
      }
    }
    return false;
  }

  // Adds the epsilon closure of `pc` at `pos` to `set`; true when Match is reachable.
  bool add(SparseSet& set, std::uint32_t start, std::size_t pos, std::vector<std::uint32_t>& stack) const {
    stack.clear();
    stack.push_back(start);
    while (!stack.empty()) {
      std::uint32_t pc = stack.back();
      stack.pop_back();
      if (set.contains(pc)) continue;
      set.insert(pc);
      const Regex::Inst& in = prog_[pc];
      switch (in.op) {
        case Regex::Op::Match:
          return true;
        case Regex::Op::Jump:
          stack.push_back(in.x);
          break;
        case Regex::Op::Split:
          stack.push_back(in.y);
          stack.push_back(in.x);
          break;
        case Regex::Op::Assert:
          if (assertion_holds(in.assertion, pos)) stack.push_back(pc + 1);
          break;
        default:
          break;  // consuming instructions wait for the next step
      }
    }
    return false;
  }

  bool consumes(const Regex::Inst& in, char32_t r) const {
    switch (in.op) {
      case Regex::Op::Any:
        return true;
      case Regex::Op::AnyNotNewline:
        return r != '\n';
      case Regex::Op::Class:
        for (std::uint32_t i = in.x; i < in.x + in.y; ++i) {
          if (r < ranges_[i].lo) return false;  // ranges are sorted
          if (r <= ranges_[i].hi) return true;
        }
        return false;
      default:
        return false;
    }
  }

 private:
  const std::vector<Regex::Inst>& prog_;
  const std::vector<Regex::Range>& ranges_;
  std::string_view text_;
};

}  // namespace

bool Regex::search(std::string_view text) const {
  if (dfa_.empty()) return pike_search(text);
  std::uint16_t state = 0;
  for (char c : text) {
    std::uint8_t flags = dfa_flags_[state];
    if (flags & kAcceptNow) return true;
    if (flags & kDead) return false;
    auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x80) return pike_search(text);  // the DFA covers ASCII only
    state = dfa_[static_cast<std::size_t>(state) * 128 + byte];
  }
  return (dfa_flags_[state] & (kAcceptNow | kAcceptAtEnd)) != 0;
}

bool Regex::pike_search(std::string_view text) const {
  if (program_.empty()) return false;
  Scratch& s = scratch();
  s.current.reset(program_.size());
  s.next.reset(program_.size());
  Vm vm(program_, ranges_, text);
  SparseSet* current = &s.current;
  SparseSet* next = &s.next;
  for (std::size_t pos = 0;;) {
    if (!anchored_start_ || pos == 0) {
      if (vm.add(*current, 0, pos, s.stack)) return true;
    }
    if (pos >= text.size() || (current->size() == 0 && anchored_start_)) return false;
    auto [r, width] = utf8::decode(text.substr(pos));
    next->clear();
    for (std::size_t i = 0; i < current->size(); ++i) {
      std::uint32_t pc = (*current)[i];
      if (vm.consumes(program_[pc], r) && vm.add(*next, pc + 1, pos + width, s.stack)) return true;
    }
    std::swap(current, next);
    pos += width;
  }
}

}  // namespace kueuepp::kube::schema
