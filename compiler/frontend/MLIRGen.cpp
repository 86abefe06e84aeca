//===- MLIRGen.cpp - kernels, functions and statements --------------------===//
#include "MLIRGenImpl.h"
#include "tile/Analysis/SharedMemory.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"

#include <limits>
#include <optional>

using namespace tile;
using namespace tile::ast;
using llvm::SMLoc;
using llvm::StringRef;
using llvm::Twine;

void tile::collectAssigned(const Block &block, std::set<std::string> &names) {
  for (auto &s : block) {
    if (auto *a = llvm::dyn_cast<AssignStmt>(s.get()))
      names.insert(a->name);
    else if (auto *f = llvm::dyn_cast<ForStmt>(s.get()))
      collectAssigned(f->body, names);
    else if (auto *i = llvm::dyn_cast<IfStmt>(s.get())) {
      collectAssigned(i->thenBody, names);
      collectAssigned(i->elseBody, names);
    }
  }
}

Val *MLIRGen::lookup(StringRef name) {
  auto &scopes = frames.back();
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
    auto found = it->find(name.str());
    if (found != it->end())
      return &found->second;
  }
  return nullptr;
}

bool MLIRGen::define(SMLoc l, const std::string &name, Val v) {
  if (lookup(name))
    return error(l, "'" + name + "' is already defined in this function; assign to it "
                    "with '" + name + " = ...' instead");
  frames.back().back()[name] = v;
  return true;
}

/// Parses a `-D NAME=VALUE` value or a default for a compile-time parameter.
static std::optional<Val> parseDefine(MLIRGen &gen, SMLoc l, const Param &p, StringRef text) {
  StringRef kind = p.type->name;
  if (kind == "int") {
    int64_t v;
    if (text.getAsInteger(0, v))
      return gen.error(l, "-D " + p.name + "=" + text + ": expected an integer"), std::nullopt;
    return Val::makeInt(v);
  }
  if (kind == "bool") {
    if (text != "true" && text != "false" && text != "1" && text != "0")
      return gen.error(l, "-D " + p.name + "=" + text + ": expected true or false"), std::nullopt;
    return Val::makeBool(text == "true" || text == "1");
  }
  bool isUnsigned = false;
  auto type = gen.parseElementType(text, isUnsigned);
  if (!type)
    return gen.error(l, "-D " + p.name + "=" + text +
                            ": expected a dtype (f32, f16, bf16, f8e4m3, f8e5m2, bool, "
                            "i8, u8, i16, i32, i64)"),
           std::nullopt;
  return Val::makeDtype(*type, isUnsigned);
}

/// The variable names `e` reads, each once, in the order they appear.
static void collectNames(const Expr &e, llvm::SmallVectorImpl<std::string> &names) {
  auto visit = [&](const ExprPtr &sub) { collectNames(*sub, names); };
  switch (e.getKind()) {
  case Expr::Kind::Name: {
    const std::string &name = llvm::cast<NameExpr>(e).name;
    if (!llvm::is_contained(names, name))
      names.push_back(name);
    return;
  }
  case Expr::Kind::Unary:
    return visit(llvm::cast<UnaryExpr>(e).operand);
  case Expr::Kind::Binary:
    visit(llvm::cast<BinaryExpr>(e).lhs);
    return visit(llvm::cast<BinaryExpr>(e).rhs);
  case Expr::Kind::Call:
    llvm::for_each(llvm::cast<CallExpr>(e).args, visit);
    for (const KeywordArg &k : llvm::cast<CallExpr>(e).kwargs)
      visit(k.value);
    return;
  case Expr::Kind::Method:
    visit(llvm::cast<MethodExpr>(e).receiver);
    llvm::for_each(llvm::cast<MethodExpr>(e).args, visit);
    return;
  case Expr::Kind::Subscript:
    return visit(llvm::cast<SubscriptExpr>(e).base);
  case Expr::Kind::List:
    llvm::for_each(llvm::cast<ListExpr>(e).elements, visit);
    return;
  case Expr::Kind::Int:
  case Expr::Kind::Float:
  case Expr::Kind::Bool:
  case Expr::Kind::Str:
    return;
  }
}

/// In `<...>`, int, bool and dtype parameters are compile-time; in `(...)`,
/// int and dtype ones are (bool there is a runtime scalar or tile of bools).
static bool isCompileTimeKind(const TypeExpr &t, bool inAngles) {
  return !t.pointee && (t.name == "int" || t.name == "dtype" || (inAngles && t.name == "bool"));
}

/// Checks that a compile-time value has the declared kind.
static bool checkCtKind(MLIRGen &gen, SMLoc l, const Param &p, const Val &v) {
  StringRef kind = p.type->name;
  bool ok = (kind == "int" && v.kind == Val::Kind::Int) ||
            (kind == "bool" && v.kind == Val::Kind::Bool) ||
            (kind == "dtype" && v.kind == Val::Kind::Dtype);
  if (!ok)
    return gen.error(l, "compile-time parameter '" + p.name + "' of kind " + kind +
                            " cannot take " + gen.describe(v));
  return true;
}

mlir::OwningOpRef<mlir::ModuleOp>
MLIRGen::generate(StringRef kernelName, const std::map<std::string, std::string> &defines,
                  KernelSignature *signature) {
  const Function *kernel = nullptr;
  std::vector<std::string> kernels;
  // By name when one is given: check() instantiates every kernel of a file,
  // and a scan of the file for each made that quadratic.
  if (const Function *f = kernelName.empty() ? nullptr : module.lookup(kernelName);
      !f || !f->isKernel)
    for (auto &f : module.functions)
      if (f->isKernel)
        kernels.push_back(f->name);
  if (kernelName.empty()) {
    if (kernels.size() != 1) {
      std::string names = llvm::join(kernels, ", ");
      diags.error(SMLoc::getFromPointer(diags.getSourceMgr()
                                            .getMemoryBuffer(diags.getSourceMgr().getMainFileID())
                                            ->getBufferStart()),
                  kernels.empty() ? Twine("the file defines no kernel")
                                  : "the file defines " + Twine(kernels.size()) +
                                        " kernels (" + names + "); choose one with --kernel");
      return nullptr;
    }
    kernelName = kernels.front();
  }
  if (const Function *f = module.lookup(kernelName); f && f->isKernel)
    kernel = f;
  if (!kernel) {
    diags.error(SMLoc::getFromPointer(
                    diags.getSourceMgr().getMemoryBuffer(diags.getSourceMgr().getMainFileID())
                        ->getBufferStart()),
                "no kernel named '" + kernelName + "' (the file defines: " +
                    llvm::join(kernels, ", ") + ")");
    return nullptr;
  }

  frames.emplace_back();
  frames.back().emplace_back();
  callStack.push_back(kernel);
  std::set<std::string> used;
  for (auto &p : kernel->ctParams) {
    if (!isCompileTimeKind(*p.type, /*inAngles=*/true)) {
      error(p.type->loc, "compile-time parameter '" + p.name +
                             "' must have kind int, bool or dtype, not '" +
                             (p.type->pointee ? "ptr" : p.type->name) + "'");
      return nullptr;
    }
    std::optional<Val> v;
    auto it = defines.find(p.name);
    if (it != defines.end()) {
      used.insert(p.name);
      v = parseDefine(*this, p.loc, p, it->second);
    } else if (p.defaultValue) {
      v = genExpr(*p.defaultValue);
      if (v && v->kind == Val::Kind::Runtime) {
        error(p.defaultValue->getLoc(), "default of '" + p.name + "' is not a compile-time value");
        return nullptr;
      }
    } else {
      error(p.loc, "compile-time parameter '" + p.name + "' has no default; pass -D " +
                       p.name + "=VALUE");
      return nullptr;
    }
    if (!v || !checkCtKind(*this, p.loc, p, *v) || !define(p.loc, p.name, *v))
      return nullptr;
    if (p.name == "num_warps") {
      if (v->kind != Val::Kind::Int || v->i < 1 || v->i > 32 || (v->i & (v->i - 1))) {
        error(p.loc, "num_warps must be an int power of two in [1, 32], got " + describe(*v));
        return nullptr;
      }
      signature->numWarps = v->i;
      signature->numWarpsLoc = p.loc;
    }
    if (!p.candidates.empty() && !collectTunable(p, *v, *signature))
      return nullptr;
  }
  for (auto &name : kernel->tuneKey) {
    auto it = llvm::find_if(kernel->params, [&](const Param &q) { return q.name == name; });
    if (it == kernel->params.end() || it->type->pointee ||
        !llvm::is_contained({"i8", "u8", "i16", "i32", "i64"}, it->type->name)) {
      error(kernel->tuneKeyLoc, "key(" + name + "): the tuning key names integer runtime "
                                "parameters of '" + kernel->name + "'");
      return nullptr;
    }
    signature->tuneKey.push_back(name);
  }
  for (auto &[name, value] : defines) {
    if (!used.count(name)) {
      error(kernel->loc, "-D " + name + "=" + value + ": kernel '" + kernel->name +
                             "' has no compile-time parameter named '" + name + "'");
      return nullptr;
    }
  }

  std::vector<mlir::Type> argTypes;
  std::vector<bool> argUnsigned;
  signature->name = kernel->name;
  for (auto &p : kernel->params) {
    if (isCompileTimeKind(*p.type, /*inAngles=*/false)) {
      error(p.type->loc, "kernel parameter '" + p.name + "' of kind '" + p.type->name +
                             "' must be declared in '<...>' as a compile-time parameter");
      return nullptr;
    }
    bool isUnsigned = false;
    auto type = resolveType(*p.type, isUnsigned);
    if (!type)
      return nullptr;
    argTypes.push_back(*type);
    argUnsigned.push_back(isUnsigned);
    auto ptrType = llvm::dyn_cast<mlir::tileir::PointerType>(*type);
    mlir::Type elem = ptrType ? ptrType.getPointee() : *type;
    ScalarKind kind = ScalarKind::F32;
    if (elem.isF16())
      kind = ScalarKind::F16;
    else if (elem.isBF16())
      kind = ScalarKind::BF16;
    else if (llvm::isa<mlir::Float8E4M3FNType>(elem))
      kind = ScalarKind::F8E4M3;
    else if (llvm::isa<mlir::Float8E5M2Type>(elem))
      kind = ScalarKind::F8E5M2;
    else if (elem.isInteger(1))
      kind = ScalarKind::I1;
    else if (elem.isInteger(8))
      kind = isUnsigned ? ScalarKind::U8 : ScalarKind::I8;
    else if (elem.isInteger(16))
      kind = ScalarKind::I16;
    else if (elem.isInteger(32))
      kind = ScalarKind::I32;
    else if (elem.isInteger(64))
      kind = ScalarKind::I64;
    signature->params.push_back({p.name, kind, ptrType != nullptr});
  }

  mlir::OwningOpRef<mlir::ModuleOp> moduleOp = mlir::ModuleOp::create(loc(kernel->loc));
  builder.setInsertionPointToEnd(moduleOp->getBody());
  auto funcType = builder.getFunctionType(argTypes, {});
  auto func = mlir::func::FuncOp::create(builder, loc(kernel->loc), kernel->name, funcType);
  func->setAttr("tile.kernel", builder.getUnitAttr());
  mlir::Block *entry = func.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  for (auto [i, p] : llvm::enumerate(kernel->params))
    if (!define(p.loc, p.name, Val::makeRuntime(entry->getArgument(i), argUnsigned[i])))
      return nullptr;
  for (auto &s : kernel->body) {
    if (auto *ret = llvm::dyn_cast<ReturnStmt>(s.get())) {
      if (ret->value) {
        error(ret->getLoc(), "a kernel returns nothing; write results through pointers");
        return nullptr;
      }
    }
  }
  // A bare `return;` may end a kernel.
  size_t numStmts = kernel->body.size();
  if (numStmts && llvm::isa<ReturnStmt>(kernel->body.back().get()))
    --numStmts;
  frames.back().emplace_back();
  for (size_t i = 0; i < numStmts; ++i)
    if (!genStmt(*kernel->body[i]))
      return nullptr;
  mlir::func::ReturnOp::create(builder, loc(kernel->endLoc));
  if (mlir::failed(mlir::verify(*moduleOp))) {
    error(kernel->loc, "internal error: the generated tile IR does not verify");
    return nullptr;
  }
  return moduleOp;
}

bool MLIRGen::collectTunable(const Param &p, const Val &value, KernelSignature &signature) {
  auto text = [](const Val &v) {
    return v.kind == Val::Kind::Bool ? std::string(v.b ? "true" : "false") : std::to_string(v.i);
  };
  std::vector<Val> values;
  for (auto &c : p.candidates) {
    auto v = genExpr(*c);
    if (!v)
      return false;
    if (v->kind != value.kind || v->kind == Val::Kind::Dtype)
      return error(c->getLoc(), "candidate of '" + p.name + "' must be " +
                                    (value.kind == Val::Kind::Int ? "an int" : "a bool") +
                                    " constant, got " + describe(*v));
    values.push_back(*v);
  }
  Tunable t{p.name, text(value), {}};
  if (p.candidateRange) {
    if (value.kind != Val::Kind::Int)
      return error(p.candidatesLoc, "a range of candidates needs an int parameter");
    int64_t lo = values[0].i, hi = values[1].i;
    if (lo < 1 || hi < lo)
      return error(p.candidatesLoc, "tuning range [" + Twine(lo) + ", " + Twine(hi) +
                                        "] needs 1 <= lo <= hi");
    for (int64_t v = 1; v <= hi; v *= 2)
      if (v >= lo)
        t.candidates.push_back(std::to_string(v));
  } else {
    for (auto &v : values)
      t.candidates.push_back(text(v));
  }
  if (t.candidates.empty())
    return error(p.candidatesLoc, "tuning range of '" + p.name + "' holds no power of two");
  signature.tunables.push_back(std::move(t));
  return true;
}

bool MLIRGen::genBlock(const Block &block) {
  frames.back().emplace_back();
  bool ok = true;
  for (auto &s : block) {
    if (!genStmt(*s)) {
      ok = false;
      break;
    }
  }
  frames.back().pop_back();
  return ok;
}

bool MLIRGen::genStmt(const Stmt &stmt) {
  if (!enterNested(stmt.getLoc()))
    return false;
  llvm::scope_exit leave([&] { --nesting; });
  switch (stmt.getKind()) {
  case Stmt::Kind::Let: {
    auto &let = llvm::cast<LetStmt>(stmt);
    auto v = genExpr(*let.value);
    if (!v)
      return false;
    if (v->kind == Val::Kind::Dtype && let.type)
      return error(let.getLoc(), "a dtype value cannot have a type annotation");
    if (let.type) {
      bool isUnsigned = false;
      auto type = resolveType(*let.type, isUnsigned);
      if (!type)
        return false;
      if (v->isConst()) {
        v = materialize(let.value->getLoc(), *v, *type, isUnsigned);
        if (!v)
          return false;
      }
      mlir::Type elem = mlir::getElementTypeOrSelf(v->value.getType());
      if (elem != *type || v->isUnsigned != isUnsigned)
        return error(let.value->getLoc(), "'" + let.name + "' is declared " +
                                              typeName(*type, isUnsigned) + " but the value is " +
                                              describe(*v));
    }
    return define(let.getLoc(), let.name, *v);
  }
  case Stmt::Kind::Assign: {
    auto &a = llvm::cast<AssignStmt>(stmt);
    Val *var = lookup(a.name);
    if (!var)
      return error(a.getLoc(), "assignment to undefined variable '" + a.name +
                                   "'; declare it with 'let " + a.name + " = ...'");
    auto v = genExpr(*a.value);
    if (!v)
      return false;
    if (a.op != "=") {
      v = genBinary(a.getLoc(), StringRef(a.op).drop_back(), *var, *v);
      if (!v)
        return false;
    }
    if (var->isConst() && v->isConst()) {
      if (var->kind != v->kind)
        return error(a.value->getLoc(), "cannot assign " + describe(*v) + " to '" + a.name +
                                            "' which holds " + describe(*var));
      *var = *v;
      return true;
    }
    if (var->kind == Val::Kind::Dtype || v->kind == Val::Kind::Dtype)
      return error(a.value->getLoc(), "dtype variables cannot be reassigned");
    if (var->isConst()) {
      // The variable changes at run time: from here on it is a runtime value.
      auto natural = materializeNatural(a.getLoc(), *var);
      if (!natural)
        return false;
      *var = *natural;
    }
    mlir::Type want = var->value.getType();
    if (v->isConst()) {
      v = materialize(a.value->getLoc(), *v, mlir::getElementTypeOrSelf(want),
                      var->isUnsigned);
      if (!v)
        return false;
      if (auto shaped = llvm::dyn_cast<mlir::RankedTensorType>(want))
        v->value = broadcastTo(a.getLoc(), v->value, shaped.getShape());
    }
    if (v->value.getType() != want || v->isUnsigned != var->isUnsigned)
      return error(a.value->getLoc(), "cannot assign " + describe(*v) + " to '" + a.name +
                                          "' of type " + describe(*var) +
                                          " (a variable keeps its type and shape)");
    var->value = v->value;
    return true;
  }
  case Stmt::Kind::For:
    return genFor(llvm::cast<ForStmt>(stmt));
  case Stmt::Kind::If:
    return genIf(llvm::cast<IfStmt>(stmt));
  case Stmt::Kind::Return:
    return error(stmt.getLoc(), "'return' must be the last statement of a function "
                                "(early returns are not supported)");
  case Stmt::Kind::StaticAssert: {
    auto &sa = llvm::cast<StaticAssertStmt>(stmt);
    auto v = genExpr(*sa.cond);
    if (!v)
      return false;
    if (v->kind != Val::Kind::Bool)
      return error(sa.cond->getLoc(), "static_assert needs a compile-time bool condition, got " +
                                          describe(*v));
    if (v->b)
      return true;
    // The compile-time values the condition read, e.g. (PAGE = -64).
    llvm::SmallVector<std::string> names;
    collectNames(*sa.cond, names);
    std::string values;
    for (const std::string &name : names) {
      Val *var = lookup(name);
      if (!var || var->isRuntime())
        continue;
      values += (values.empty() ? " (" : ", ") + name + " = ";
      switch (var->kind) {
      case Val::Kind::Int:
        values += std::to_string(var->i);
        break;
      case Val::Kind::Float: {
        llvm::raw_string_ostream os(values);
        os << llvm::format("%g", var->f);
        break;
      }
      case Val::Kind::Bool:
        values += var->b ? "true" : "false";
        break;
      case Val::Kind::Dtype:
        values += typeName(var->dtype, var->isUnsigned);
        break;
      case Val::Kind::Runtime:
        break;
      }
    }
    if (!values.empty())
      values += ")";
    return error(sa.getLoc(), "static assertion failed" +
                                  (sa.message.empty() ? Twine("") : ": " + sa.message) + values);
  }
  case Stmt::Kind::ExprStmt:
    return genExpr(*llvm::cast<ExprStmt>(stmt).expr).has_value();
  }
  return false;
}

/// Variables assigned in `body` that live outside it, with runtime values
/// (compile-time values are materialised first). Sorted: deterministic IR.
static std::optional<std::vector<std::string>>
carriedVars(MLIRGen &gen, SMLoc l, const std::vector<const Block *> &bodies) {
  std::set<std::string> assigned;
  for (auto *b : bodies)
    collectAssigned(*b, assigned);
  std::vector<std::string> carried;
  for (auto &name : assigned) {
    Val *v = gen.lookup(name);
    if (!v)
      continue; // declared inside the body; reported when generated
    if (v->kind == Val::Kind::Dtype)
      return gen.error(l, "dtype variable '" + name + "' cannot change at run time"),
             std::nullopt;
    if (v->isConst()) {
      auto natural = gen.materializeNatural(l, *v);
      if (!natural)
        return std::nullopt;
      *v = *natural;
    }
    carried.push_back(name);
  }
  return carried;
}

/// Builders add an empty scf.yield to result-less regions; the generator
/// writes its own.
static void eraseTerminator(mlir::Block *block) {
  if (!block->empty() && llvm::isa<mlir::scf::YieldOp>(block->back()))
    block->back().erase();
}

/// An upper bound of `v` where it is positive by construction: a positive
/// constant, a program count (at most INT32_MAX), or sign or zero extensions,
/// sums and products of those whose bound fits `v`'s signed type (one that
/// can overflow, num_programs(0) * 2 in i32, may wrap to 0 or below).
static std::optional<uint64_t> positiveBound(mlir::Value v) {
  mlir::APInt c;
  if (mlir::matchPattern(v, mlir::m_ConstantInt(&c)))
    return c.isStrictlyPositive() && c.getActiveBits() <= 63
               ? std::optional<uint64_t>(c.getZExtValue())
               : std::nullopt;
  mlir::Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (llvm::isa<mlir::tileir::NumProgramsOp>(def))
    return uint64_t(std::numeric_limits<int32_t>::max());
  if (llvm::isa<mlir::arith::ExtSIOp, mlir::arith::ExtUIOp>(def))
    return positiveBound(def->getOperand(0));
  if (!llvm::isa<mlir::arith::MulIOp, mlir::arith::AddIOp>(def))
    return std::nullopt;
  auto lhs = positiveBound(def->getOperand(0)), rhs = positiveBound(def->getOperand(1));
  if (!lhs || !rhs)
    return std::nullopt;
  // Saturated at UINT64_MAX, which no type's bound admits.
  uint64_t bound = llvm::isa<mlir::arith::MulIOp>(def) ? llvm::SaturatingMultiply(*lhs, *rhs)
                                                       : llvm::SaturatingAdd(*lhs, *rhs);
  if (bound > uint64_t(llvm::maxIntN(v.getType().getIntOrFloatBitWidth())))
    return std::nullopt;
  return bound;
}

bool MLIRGen::genFor(const ForStmt &stmt) {
  auto start = genExpr(*stmt.start), end = genExpr(*stmt.end);
  if (!start || !end)
    return false;
  std::optional<Val> step = Val::makeInt(1);
  if (stmt.step && !(step = genExpr(*stmt.step)))
    return false;
  if (step->kind == Val::Kind::Int && step->i <= 0)
    return error(stmt.step->getLoc(), "range step must be positive, got " + Twine(step->i));
  std::vector<Val *> bounds = {&*start, &*end, &*step};
  for (Val *b : bounds) {
    bool isInt = b->kind == Val::Kind::Int ||
                 (b->isRuntime() && llvm::isa<mlir::IntegerType>(b->value.getType()) &&
                  !b->value.getType().isInteger(1));
    if (!isInt)
      return error(stmt.getLoc(), "range bounds must be scalar integers, got " + describe(*b));
  }
  if (!unify(stmt.getLoc(), "range bounds", bounds, true))
    return false;
  auto carried = carriedVars(*this, stmt.getLoc(), {&stmt.body});
  if (!carried)
    return false;
  std::vector<mlir::Value> inits;
  for (auto &name : *carried)
    inits.push_back(lookup(name)->value);

  mlir::Value upper = end->value, stride = step->value;
  if (!positiveBound(stride)) {
    // A run-time step that is not positive runs no iterations (scf.for needs
    // a positive step; with 0 the loop would never end): the upper bound
    // becomes the start. The step then stands in as a large power of two,
    // so that the select keeps the divisibility the step had (AxisInfo
    // takes the gcd of both), and with it the loop variable's alignment.
    auto l = loc(stmt.getLoc());
    auto type = stride.getType();
    unsigned width = type.getIntOrFloatBitWidth();
    auto positive =
        mlir::arith::CmpIOp::create(builder, l, mlir::arith::CmpIPredicate::sgt, stride,
                                    mlir::createScalarOrSplatConstant(builder, l, type, 0));
    upper = mlir::arith::SelectOp::create(builder, l, positive, upper, start->value);
    stride = mlir::arith::SelectOp::create(
        builder, l, positive, stride,
        mlir::createScalarOrSplatConstant(builder, l, type,
                                          int64_t(1) << (std::min(width, 32u) - 2)));
  }
  auto forOp = mlir::scf::ForOp::create(builder, loc(stmt.getLoc()), start->value, upper, stride,
                                        inits);
  if (stmt.numStages) {
    auto stages = genExpr(*stmt.numStages);
    if (!stages)
      return false;
    if (stages->kind != Val::Kind::Int || stages->i < 1 || stages->i > 8)
      return error(stmt.numStages->getLoc(),
                   "num_stages must be a compile-time integer from 1 to 8, got " +
                       describe(*stages));
    forOp->setAttr(mlir::tileir::kNumStagesAttr, builder.getI32IntegerAttr(int32_t(stages->i)));
  }
  mlir::OpBuilder::InsertionGuard guard(builder);
  eraseTerminator(forOp.getBody());
  builder.setInsertionPointToStart(forOp.getBody());
  std::map<std::string, Val> saved;
  for (auto [i, name] : llvm::enumerate(*carried)) {
    Val *v = lookup(name);
    saved[name] = *v;
    v->value = forOp.getRegionIterArg(i);
  }
  frames.back().emplace_back();
  bool ok = define(stmt.varLoc, stmt.var, Val::makeRuntime(forOp.getInductionVar(),
                                                            start->isUnsigned)) &&
            genBlock(stmt.body);
  frames.back().pop_back();
  if (!ok)
    return false;
  std::vector<mlir::Value> yields;
  for (auto &name : *carried)
    yields.push_back(lookup(name)->value);
  mlir::scf::YieldOp::create(builder, loc(stmt.getLoc()), yields);
  for (auto [i, name] : llvm::enumerate(*carried))
    lookup(name)->value = forOp.getResult(i);
  return true;
}

bool MLIRGen::genIf(const IfStmt &stmt) {
  auto cond = genExpr(*stmt.cond);
  if (!cond)
    return false;
  if (cond->kind == Val::Kind::Bool) // compile-time if: only the taken branch exists
    return genBlock(cond->b ? stmt.thenBody : stmt.elseBody);
  if (!cond->isRuntime() || !cond->value.getType().isInteger(1))
    return error(stmt.cond->getLoc(), "'if' needs a scalar bool condition, got " +
                                          describe(*cond) +
                                          (cond->isRuntime() && llvm::isa<mlir::ShapedType>(
                                                                    cond->value.getType())
                                               ? " (use where() for tiles)"
                                               : ""));
  auto carried = carriedVars(*this, stmt.getLoc(), {&stmt.thenBody, &stmt.elseBody});
  if (!carried)
    return false;
  std::vector<mlir::Type> types;
  std::map<std::string, Val> before;
  for (auto &name : *carried) {
    before[name] = *lookup(name);
    types.push_back(before[name].value.getType());
  }
  auto ifOp = mlir::scf::IfOp::create(builder, loc(stmt.getLoc()), types, cond->value,
                                      /*withElseRegion=*/true);
  mlir::OpBuilder::InsertionGuard guard(builder);
  for (int branch = 0; branch < 2; ++branch) {
    mlir::Block *block = branch == 0 ? ifOp.thenBlock() : ifOp.elseBlock();
    eraseTerminator(block);
    builder.setInsertionPointToEnd(block);
    for (auto &name : *carried)
      *lookup(name) = before[name];
    if (!genBlock(branch == 0 ? stmt.thenBody : stmt.elseBody))
      return false;
    std::vector<mlir::Value> yields;
    for (auto &name : *carried)
      yields.push_back(lookup(name)->value);
    mlir::scf::YieldOp::create(builder, loc(stmt.endLoc), yields);
  }
  for (auto [i, name] : llvm::enumerate(*carried))
    lookup(name)->value = ifOp.getResult(i);
  return true;
}

std::optional<Val> MLIRGen::inlineCall(const Function &fn, const CallExpr &call,
                                       std::vector<Val> args) {
  if (llvm::is_contained(callStack, &fn))
    return error(call.getLoc(), "recursive call to '" + fn.name +
                                    "': functions are inlined and cannot recurse"),
           std::nullopt;
  if (callStack.size() >= 64)
    return error(call.getLoc(), "calls nested deeper than 64 functions"), std::nullopt;
  if (args.size() != fn.params.size())
    return error(call.getLoc(), "'" + fn.name + "' takes " + Twine(fn.params.size()) +
                                    " arguments, got " + Twine(args.size())),
           std::nullopt;
  if (fn.body.empty() || !llvm::isa<ReturnStmt>(fn.body.back().get()) ||
      !llvm::cast<ReturnStmt>(fn.body.back().get())->value)
    return error(fn.endLoc, "function '" + fn.name + "' must end with 'return <value>;'"),
           std::nullopt;

  frames.emplace_back();
  frames.back().emplace_back();
  callStack.push_back(&fn);
  llvm::scope_exit cleanup([&] {
    frames.pop_back();
    callStack.pop_back();
  });
  for (auto [i, p] : llvm::enumerate(fn.params)) {
    Val arg = args[i];
    SMLoc argLoc = call.args[i]->getLoc();
    if (isCompileTimeKind(*p.type, /*inAngles=*/false)) {
      if (!checkCtKind(*this, argLoc, p, arg))
        return std::nullopt;
    } else {
      bool isUnsigned = false;
      auto type = resolveType(*p.type, isUnsigned);
      if (!type)
        return std::nullopt;
      if (arg.isConst()) {
        auto m = materialize(argLoc, arg, *type, isUnsigned);
        if (!m)
          return std::nullopt;
        arg = *m;
      }
      if (!arg.isRuntime() ||
          mlir::getElementTypeOrSelf(arg.value.getType()) != *type ||
          arg.isUnsigned != isUnsigned)
        return error(argLoc, "argument '" + p.name + "' of '" + fn.name + "' must have " +
                                 "element type " + typeName(*type, isUnsigned) + ", got " +
                                 describe(arg)),
               std::nullopt;
    }
    if (!define(p.loc, p.name, arg))
      return std::nullopt;
  }
  frames.back().emplace_back();
  for (size_t i = 0; i + 1 < fn.body.size(); ++i)
    if (!genStmt(*fn.body[i]))
      return std::nullopt;
  auto &ret = llvm::cast<ReturnStmt>(*fn.body.back());
  auto result = genExpr(*ret.value);
  if (!result)
    return std::nullopt;
  bool isUnsigned = false;
  auto retType = resolveType(*fn.returnType, isUnsigned);
  if (!retType)
    return std::nullopt;
  if (result->isConst()) {
    result = materialize(ret.value->getLoc(), *result, *retType, isUnsigned);
    if (!result)
      return std::nullopt;
  }
  if (!result->isRuntime() ||
      mlir::getElementTypeOrSelf(result->value.getType()) != *retType ||
      result->isUnsigned != isUnsigned)
    return error(ret.value->getLoc(), "'" + fn.name + "' returns " +
                                          typeName(*retType, isUnsigned) + " but this is " +
                                          describe(*result)),
           std::nullopt;
  return result;
}

mlir::OwningOpRef<mlir::ModuleOp>
tile::generateKernel(const Module &module, Diagnostics &diags, mlir::MLIRContext &context,
                     StringRef kernelName, const std::map<std::string, std::string> &defines,
                     KernelSignature *signature) {
  MLIRGen gen(module, diags, context);
  return gen.generate(kernelName, defines, signature);
}
