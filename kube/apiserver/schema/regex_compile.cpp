// Syntax tree -> Pike-VM program (and, when it qualifies, the ASCII DFA).

#include "kube/apiserver/schema/regex.hpp"
#include "kube/apiserver/schema/regex_syntax.hpp"

namespace kueuepp::kube::schema {
namespace {

constexpr std::size_t kMaxProgram = 50000;  // instructions; bounds memory and match time

using regex_syntax::Node;

}  // namespace

// Defined in regex_dfa.cpp: adds the ASCII DFA when the program qualifies.
void build_dfa(Regex& re);

// Turns the syntax tree into Pike-VM instructions.
class RegexCompiler {
 public:
  explicit RegexCompiler(Regex& re) : re_(re) {}

  bool emit(const Node& n) {
    if (re_.program_.size() > kMaxProgram) return false;
    switch (n.kind) {
      case Node::Kind::Empty:
        return true;
      case Node::Kind::Class: {
        Regex::Inst in{Regex::Op::Class, {}, static_cast<std::uint32_t>(re_.ranges_.size()),
                       static_cast<std::uint32_t>(n.ranges.size())};
        re_.ranges_.insert(re_.ranges_.end(), n.ranges.begin(), n.ranges.end());
        re_.program_.push_back(in);
        return true;
      }
      case Node::Kind::Any:
        re_.program_.push_back({Regex::Op::Any, {}, 0, 0});
        return true;
      case Node::Kind::AnyNotNewline:
        re_.program_.push_back({Regex::Op::AnyNotNewline, {}, 0, 0});
        return true;
      case Node::Kind::Assert:
        re_.program_.push_back({Regex::Op::Assert, n.assertion, 0, 0});
        return true;
      case Node::Kind::Concat:
        for (const Node& c : n.children) {
          if (!emit(c)) return false;
        }
        return true;
      case Node::Kind::Alternate:
        return alternate(n);
      case Node::Kind::Repeat:
        return repeat(n);
    }
    return false;
  }

 private:
  std::uint32_t pc() const { return static_cast<std::uint32_t>(re_.program_.size()); }

  bool alternate(const Node& n) {
    std::vector<std::size_t> jumps;
    for (std::size_t i = 0; i < n.children.size(); ++i) {
      if (i + 1 < n.children.size()) {
        std::uint32_t split = pc();
        re_.program_.push_back({Regex::Op::Split, {}, split + 1, 0});
        if (!emit(n.children[i])) return false;
        jumps.push_back(pc());
        re_.program_.push_back({Regex::Op::Jump, {}, 0, 0});
        re_.program_[split].y = pc();
      } else if (!emit(n.children[i])) {
        return false;
      }
    }
    for (std::size_t j : jumps) re_.program_[j].x = pc();
    return true;
  }

  bool repeat(const Node& n) {
    const Node& body = n.children[0];
    for (int i = 0; i < n.min; ++i) {
      if (!emit(body)) return false;
    }
    if (n.max < 0) {  // star loop
      std::uint32_t loop = pc();
      re_.program_.push_back({Regex::Op::Split, {}, loop + 1, 0});
      if (!emit(body)) return false;
      re_.program_.push_back({Regex::Op::Jump, {}, loop, 0});
      re_.program_[loop].y = pc();
      return true;
    }
    std::vector<std::size_t> exits;
    for (int i = n.min; i < n.max; ++i) {
      std::uint32_t split = pc();
      re_.program_.push_back({Regex::Op::Split, {}, split + 1, 0});
      exits.push_back(split);
      if (!emit(body)) return false;
    }
    for (std::size_t e : exits) re_.program_[e].y = pc();
    return true;
  }

  Regex& re_;
};

Expected<Regex> Regex::compile(std::string_view pattern, bool with_dfa) {
  auto tree = regex_syntax::parse(pattern);
  if (!tree) return fail(tree.error().message);
  Regex re;
  re.source_ = std::string(pattern);
  RegexCompiler compiler(re);
  if (!compiler.emit(*tree) || re.program_.size() > kMaxProgram) {
    return fail("error parsing regexp: expression too large");
  }
  re.program_.push_back({Op::Match, {}, 0, 0});
  re.anchored_start_ = !re.program_.empty() && re.program_[0].op == Op::Assert &&
                       re.program_[0].assertion == Assertion::BeginText;
  if (with_dfa) build_dfa(re);
  return re;
}

}  // namespace kueuepp::kube::schema
