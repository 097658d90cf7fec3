// Subset construction of an ASCII DFA from the NFA program, done once when the pattern
// is compiled. A DFA state is the set of consuming instructions the NFA can be at (after
// following jumps, splits and assertions), plus whether a match is already complete
// ("accept now") or complete if the text ends here ("accept at end", through `$`).
// Only programs whose assertions are begin/end of text qualify; the state count is
// capped so pathological patterns keep using the NFA simulation instead.

#include <algorithm>
#include <map>
#include <queue>

#include "kube/apiserver/schema/regex.hpp"

namespace kueuepp::kube::schema {

class DfaBuilder {
 public:
  static void build(Regex& re) {
    // Subset construction costs O(states x 128 x program): only small programs (every
    // CRD pattern is a few hundred instructions at most) get a DFA.
    if (re.program_.size() > kMaxProgram) return;
    for (const auto& in : re.program_) {
      if (in.op == Regex::Op::Assert && in.assertion != Regex::Assertion::BeginText &&
          in.assertion != Regex::Assertion::EndText) {
        return;
      }
    }
    DfaBuilder b(re);
    if (!b.run()) {
      re.dfa_.clear();
      re.dfa_flags_.clear();
    }
  }

 private:
  static constexpr std::size_t kMaxStates = 256;
  static constexpr std::size_t kMaxProgram = 2000;

  struct State {
    std::vector<std::uint32_t> pcs;  // consuming instructions, sorted
    std::uint8_t flags = 0;
    bool operator<(const State& o) const { return flags != o.flags ? flags < o.flags : pcs < o.pcs; }
  };

  explicit DfaBuilder(Regex& re)
      : re_(re), seen_(re.program_.size(), 0), seen_end_(re.program_.size(), 0) {}

  bool consumes(const Regex::Inst& in, char32_t c) const {
    switch (in.op) {
      case Regex::Op::Any:
        return true;
      case Regex::Op::AnyNotNewline:
        return c != '\n';
      case Regex::Op::Class:
        for (std::uint32_t i = in.x; i < in.x + in.y; ++i) {
          if (c >= re_.ranges_[i].lo && c <= re_.ranges_[i].hi) return true;
        }
        return false;
      default:
        return false;
    }
  }

  // Follows epsilon edges from `seeds`. Past a `$` only Match matters (nothing can be
  // consumed at the end of the text), so those paths are explored separately.
  State closure(const std::vector<std::uint32_t>& seeds, bool at_start) {
    State s;
    ++generation_;  // marks from earlier closures no longer count
    std::vector<std::pair<std::uint32_t, bool>>& stack = stack_;
    stack.clear();
    for (auto it = seeds.rbegin(); it != seeds.rend(); ++it) stack.push_back({*it, false});
    while (!stack.empty()) {
      auto [pc, at_end] = stack.back();
      stack.pop_back();
      auto& visited = at_end ? seen_end_ : seen_;
      if (visited[pc] == generation_) continue;
      visited[pc] = generation_;
      const Regex::Inst& in = re_.program_[pc];
      switch (in.op) {
        case Regex::Op::Match:
          s.flags |= at_end ? Regex::kAcceptAtEnd : Regex::kAcceptNow;
          break;
        case Regex::Op::Jump:
          stack.push_back({in.x, at_end});
          break;
        case Regex::Op::Split:
          stack.push_back({in.y, at_end});
          stack.push_back({in.x, at_end});
          break;
        case Regex::Op::Assert:
          if (in.assertion == Regex::Assertion::EndText) {
            stack.push_back({pc + 1, true});
          } else if (at_start) {
            stack.push_back({pc + 1, at_end});
          }
          break;
        default:
          if (!at_end) s.pcs.push_back(pc);
          break;
      }
    }
    std::sort(s.pcs.begin(), s.pcs.end());
    s.pcs.erase(std::unique(s.pcs.begin(), s.pcs.end()), s.pcs.end());
    if (s.pcs.empty() && !(s.flags & Regex::kAcceptNow) && re_.anchored_start_) s.flags |= Regex::kDead;
    return s;
  }

  // The state id of `s`, queued for expansion when new; -1 past the state cap.
  int intern(State s) {
    auto it = ids_.find(s);
    if (it != ids_.end()) return it->second;
    if (states_.size() >= kMaxStates) return -1;
    int id = static_cast<int>(states_.size());
    ids_.emplace(s, id);
    states_.push_back(std::move(s));
    pending_.push(id);
    return id;
  }

  bool run() {
    if (intern(closure({0}, true)) < 0) return false;
    while (!pending_.empty()) {
      int id = pending_.front();
      pending_.pop();
      std::vector<std::uint16_t> row(128);
      for (char32_t c = 0; c < 128; ++c) {
        std::vector<std::uint32_t> seeds;
        for (std::uint32_t pc : states_[id].pcs) {
          if (consumes(re_.program_[pc], c)) seeds.push_back(pc + 1);
        }
        if (!re_.anchored_start_) seeds.push_back(0);  // a match may start anywhere
        int next = intern(closure(seeds, false));
        if (next < 0) return false;
        row[c] = static_cast<std::uint16_t>(next);
      }
      rows_.emplace(id, std::move(row));
    }
    re_.dfa_.assign(states_.size() * 128, 0);
    re_.dfa_flags_.resize(states_.size());
    for (std::size_t i = 0; i < states_.size(); ++i) {
      re_.dfa_flags_[i] = states_[i].flags;
      std::copy(rows_[static_cast<int>(i)].begin(), rows_[static_cast<int>(i)].end(), re_.dfa_.begin() + static_cast<std::ptrdiff_t>(i * 128));
    }
    return true;
  }

  Regex& re_;
  std::vector<std::uint32_t> seen_, seen_end_;
  std::uint32_t generation_ = 0;
  std::vector<std::pair<std::uint32_t, bool>> stack_;
  std::map<State, int> ids_;
  std::vector<State> states_;
  std::queue<int> pending_;
  std::map<int, std::vector<std::uint16_t>> rows_;
};

void build_dfa(Regex& re) { DfaBuilder::build(re); }

}  // namespace kueuepp::kube::schema
