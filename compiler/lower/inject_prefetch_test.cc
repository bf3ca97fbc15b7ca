#include "compiler/lower/inject_prefetch.h"

#include <vector>

#include "compiler/arith/analyzer.h"
#include "compiler/ir/ir_operators.h"
#include "compiler/ir/ir_printer.h"
#include "compiler/ir/ir_util.h"
#include "compiler/ir/ir_visitor.h"
#include "compiler/lower/lower.h"
#include "gtest/gtest.h"

namespace tunefarm::lower {
namespace {

using ir::DataType;
using ir::Var;
using te::Tensor;

// The prefetches at the start of the body of the loop whose variable is named `loop`, each as
// (buffer name, index), and that loop's variable.
struct Found {
  ir::Stmt body;  // Keeps the nodes below alive.
  const ir::ForNode* loop = nullptr;
  std::vector<const ir::LoadNode*> prefetched;
};

class FindLoop : public ir::IRVisitor {
 public:
  explicit FindLoop(std::string name) : name_(std::move(name)) {}
  Found found;

 protected:
  void Visit_(const ir::ForNode* op) override {
    if (op->var.name() == name_ && found.loop == nullptr) {
      found.loop = op;
      std::vector<ir::Stmt> body = {op->body};
      if (const auto* seq = op->body.as<ir::SeqNode>()) body = seq->stmts;
      for (const ir::Stmt& s : body) {
        if (!IsPrefetch(s)) break;
        const auto* call = s.as<ir::EvaluateNode>()->value.as<ir::CallNode>();
        found.prefetched.push_back(call->args[0].as<ir::LoadNode>());
      }
    }
    ir::IRVisitor::Visit_(op);
  }

 private:
  std::string name_;
};

// The value of `index` with the variables named in `values` set.
int64_t At(const ir::Expr& index, const std::vector<std::pair<std::string, int64_t>>& values) {
  ir::VarMap vm;
  ir::UsesVar(index, [&](const ir::VarNode* v) {
    for (const auto& [name, value] : values) {
      if (v->name == name) vm[v] = ir::IntImmNode::Make(v->type, value);
    }
    return false;
  });
  const ir::Expr e = arith::Analyzer().Simplify(ir::Substitute(index, vm));
  const int64_t* c = ir::AsConstInt(e);
  EXPECT_NE(c, nullptr) << index;
  return c == nullptr ? -1 : *c;
}

Found Lowered(const schedule::Schedule& sch, const std::vector<Tensor>& args,
              const std::string& loop) {
  auto f = Lower(sch, args, "k");
  EXPECT_TRUE(f.ok()) << f.status();
  FindLoop finder(loop);
  if (f.ok()) finder.Visit(f->body);
  EXPECT_NE(finder.found.loop, nullptr) << (f.ok() ? f->body : ir::Stmt());
  if (f.ok()) finder.found.body = f->body;
  return finder.found;
}

// S[i] = Σ_k A[i, k], k split by 16: each k.o iteration reads one 64-byte line of A; 256 bytes
// ahead is four iterations.
TEST(InjectPrefetch, RowSum_OneLineFourIterationsAhead) {
  Tensor A = te::Placeholder({4, 256}, DataType::Float(32), "A");
  auto k = te::ReduceAxis(256, "k");
  Tensor S = *te::Compute(
      {4}, [&](const std::vector<Var>& i) { return te::Sum(A(i[0], k->var), {k}); }, "S");
  auto sch = *schedule::Schedule::Create({S});
  auto& s = (*sch)[S];
  auto ks = *s.Split(s.reduce_axis(0), 16);
  ASSERT_TRUE(s.Prefetch(A, ks.first, 256).ok());
  Found f = Lowered(*sch, {A, S}, ks.first->name());
  ASSERT_EQ(f.prefetched.size(), 1u);
  EXPECT_EQ(f.prefetched[0]->buffer->name, "A");
  EXPECT_EQ(At(f.prefetched[0]->indices[0], {{"i", 1}, {ks.first->name(), 2}}),
            1 * 256 + (2 + 4) * 16);
}

// C = A·B with B [k][n]: a k.o iteration reads 2 rows of B (ki) of a 16-column vector tile, the
// rows 192 bytes apart, so two runs of one line each; 256 bytes ahead is one iteration of k.o
// (two rows of 48 floats, 384 bytes). A does not move with the column tile's loop: no prefetch.
TEST(InjectPrefetch, GemmRows_OneRunPerRowAndNoneForAnInvariantLoad) {
  const int m = 2, n = 48, kk = 64;
  Tensor A = te::Placeholder({m, kk}, DataType::Float(32), "A");
  Tensor B = te::Placeholder({kk, n}, DataType::Float(32), "B");
  auto k = te::ReduceAxis(kk, "k");
  Tensor C = *te::Compute(
      {m, n},
      [&](const std::vector<Var>& i) { return te::Sum(A(i[0], k->var) * B(k->var, i[1]), {k}); },
      "C");
  auto sch = *schedule::Schedule::Create({C});
  Tensor CC = *sch->CacheWrite(C, "local");
  auto& c = (*sch)[C];
  auto jt = *c.Split(c.axis(1), 16);
  ASSERT_TRUE((*sch)[CC].ComputeAt(c, jt.first).ok());
  auto& cc = (*sch)[CC];
  auto ks = *cc.Split(cc.reduce_axis(0), 2);
  ASSERT_TRUE(cc.Reorder({ks.first, ks.second, cc.axis(0), cc.axis(1)}).ok());
  ASSERT_TRUE(cc.Vectorize(cc.axis(1)).ok());
  ASSERT_TRUE(c.Vectorize(jt.second).ok());
  ASSERT_TRUE(cc.Prefetch(B, ks.first, 256).ok());
  ASSERT_TRUE(c.Prefetch(CC, jt.first, 256).ok());  // C's own loop: reads CC, a local buffer.
  Found f = Lowered(*sch, {A, B, C}, ks.first->name());
  ASSERT_EQ(f.prefetched.size(), 2u);
  const std::string jo = jt.first->name();
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(f.prefetched[r]->buffer->name, "B");
    EXPECT_EQ(At(f.prefetched[r]->indices[0], {{ks.first->name(), 5}, {jo, 2}}),
              (5 + 1) * 2 * n + r * n + 2 * 16);
  }

  // A at the k.o loop: it reads A[i, k] at its own row, two floats a k.o iteration, 8 bytes, so
  // 32 iterations ahead; at the j.o loop: A's index does not move with j.o.
  auto sch2 = *schedule::Schedule::Create({C});
  auto& c2 = (*sch2)[C];
  auto jt2 = *c2.Split(c2.axis(1), 16);
  auto ks2 = *c2.Split(c2.reduce_axis(0), 2);
  ASSERT_TRUE(c2.Reorder({c2.axis(0), jt2.first, ks2.first, ks2.second, jt2.second}).ok());
  ASSERT_TRUE(c2.Prefetch(A, jt2.first, 256).ok());
  ASSERT_TRUE(c2.Prefetch(A, ks2.first, 256).ok());
  Found invariant = Lowered(*sch2, {A, B, C}, jt2.first->name());
  EXPECT_TRUE(invariant.prefetched.empty());
  Found moving = Lowered(*sch2, {A, B, C}, ks2.first->name());
  ASSERT_EQ(moving.prefetched.size(), 1u);
  EXPECT_EQ(At(moving.prefetched[0]->indices[0], {{"i", 1}, {ks2.first->name(), 3}}),
            1 * kk + (3 + 32) * 2);
}

}  // namespace
}  // namespace tunefarm::lower
