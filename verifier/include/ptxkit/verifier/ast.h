// ast.h: the PTX abstract syntax tree that the parser builds and every verifier pass reads.
//
// Why it looks like this: the verifier checks any PTX (nvcc's, LLVM's, Triton's, ours) exactly as
// the driver will load it, so the tree keeps everything the text says, in order, with a source
// location {line, col} on every node, and the canonical printer can print it back. It is also built
// for 100 MB inputs: all strings are std::string_view into storage the Module owns (the source
// text and an arena), and the per-instruction arrays are arena Spans, so a module costs a small
// multiple of its text (< 10x). A Module is immutable once parsed; copying one is cheap and the
// copies share the storage.
//
// Names are kept as written: registers with their '%' ("%r1"), labels and symbols as spelled
// ("$L__BB0_1", "_Z3fooPf"), modifiers without their leading dot ("global", "shared::cta").
// Identifiers without '%' are OperandKind::kSymbol even when they name a register declared in a
// `.reg` (inline-asm blocks often do `.reg .pred p;`): resolve them against the declarations.
// The exception is an element of a vector register (`mx.x` of `.reg .v2 .f32 mx;`): only a
// register has elements, so it is a kRegister however it is named.
#pragma once

#include "ptxkit/isa/isa.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ptxkit::verifier {

// 1-based line and column (column counts bytes) of a node's first character.
struct SourceLoc {
  std::uint32_t line = 0;
  std::uint32_t col = 0;
  friend bool operator==(const SourceLoc&, const SourceLoc&) = default;
};

// A read-only array owned by the Module's arena (or any storage that outlives the view).
template <class T>
class Span {
public:
  Span() = default;
  Span(const T* data, std::uint32_t size) : data_(data), size_(size) {}
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  const T* data() const { return data_; }
  std::uint32_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T& operator[](std::uint32_t i) const { return data_[i]; }
  const T& front() const { return data_[0]; }
  const T& back() const { return data_[size_ - 1]; }

private:
  const T* data_ = nullptr;
  std::uint32_t size_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Types and state spaces
// ---------------------------------------------------------------------------------------------

enum class StateSpace : std::uint8_t {
  kNone, // no state space (e.g. a .ptr without a space: generic)
  kReg,
  kSreg,
  kConst,
  kGlobal,
  kLocal,
  kParam,
  kShared,
  kTex,
};

// Fundamental PTX types as written in declarations (`.b32`, `.f16x2`, `.pred`, `.texref`...).
// A PTX fundamental type (isa/types.def; sizes, spellings and kinds are isa.h's).
using ScalarType = isa::Type;
// An instruction's opcode (isa/instructions.def; traits and spellings are isa.h's).
using Opcode = isa::Opcode;

// "reg", "global", ... ; "" for kNone.
std::string_view state_space_name(StateSpace s);

enum class Linkage : std::uint8_t { kNone, kVisible, kExtern, kWeak, kCommon };

// ---------------------------------------------------------------------------------------------
// Operands
// ---------------------------------------------------------------------------------------------

// 0..3 for a register name that ends in a vector element selector (`%acc.y`, `mx.x`, `%v.a`:
// .x .y .z .w or .r .g .b .a, PTX ISA 5.4.2), else -1.
int vector_element_index(std::string_view register_name);

enum class OperandKind : std::uint8_t {
  kRegister,   // %r1, %rd2, %p3, %f4 (any '%' name that is not a special register), and an
               // element of a vector register however named: %acc.y, mx.x (ast.h opening)
  kSpecialReg, // %tid.x, %laneid, %clock64, %ctaid.y, %envreg3 ...
  kSymbol,     // a label, variable, function or a register named without '%'
  kImmInt,     // 42, -1, 0xFF, 017, 0b101, 7U
  kImmFloat,   // 0f3F800000, 0d3FF0000000000000, 1.5, 1e-6
  kAddress,    // [base], [base+off], [base+-off], [imm], [base, {coords}] ...
  kVector,     // {%r1, %r2, _}
  kPair,       // %p1|%p2 (setp, shfl: two destinations)
  kParenList,  // (a, b) in call
  kSink,       // _
};

// One operand. Packed to 40 bytes (an instruction's operands are the bulk of a module).
//   kRegister/kSpecialReg/kSymbol: text() is the name; a kSymbol written `sym+8` (mov of an
//              address) has has_offset() and address_offset() 8. A video instruction's register
//              with a byte/half-word selector or SIMD mask (`%r2.b0`, `%r1.h10`, `%r3.b3210`,
//              PTX ISA 9.7.20) keeps the bare name in text() (the register the analyses see) and
//              has_selector(), selector() "b0" / "h10" / "b3210" (its characters in `bits`).
//              An element of a vector register (`%acc.y`, `mx.x`, `%v.a`, 5.4.2) is a kRegister
//              whose text() is the element's name as written (no blanks: `mx .x` is "mx.x");
//              vector_element() says which; FunctionIR resolves it to that element's register.
//              A special register's component is spelled .x/.y/.z/.w (`%tid.r` is "%tid.x").
//              An array element without brackets (`arr[2]`, 6.4.2) is the address arr + 2 x the
//              element size: a kSymbol with that offset (`mov`), a kAddress in a memory access.
//              An element indexed by a register (`arr[%r1]`, `arr[%r1+K]`) has no such address
//              form: ptxas computes arr + zext32(%r1 + K) x the element's scalar size (the low
//              32 bits of the index, unsigned). It is kept as written: has_register_index(),
//              text() the array, elements() {the index register, then K as a kImmInt when
//              written}, no offset; the analyses read the register as a use and the address as
//              not constant. A vmad source written `-%r2.h0` (9.7.20.1) has minus().
//   kImmInt:   text() is the spelling, int_value() the value (two's complement in `bits`). A
//              constant expression (`(1 + 2) * 3`, 4.5.4) is folded to its value by PTX's
//              64-bit signed/unsigned rules and spelled as that value (`9`, `17U` if unsigned).
//   kImmFloat: text() is the spelling; `0f` patterns keep their 32-bit pattern in `bits` (and
//              is_f32_pattern()), `0d` and decimal spellings the double's 64 bits.
//   kAddress:  text() is the base (register or symbol name, or an immediate's spelling when
//              address_base_is_immediate()), address_offset() the signed offset (0 if none),
//              has_offset() whether one was written; elements() are the further comma-separated
//              items inside the brackets (tensor coordinates `{...}`, texture sampler...);
//              is_unified() for `[addr].unified` (ld, PTX 8.1: the address is unified memory).
//   kVector/kPair/kParenList: elements().
struct Operand {
  SourceLoc loc;
  const char* text_data = nullptr;
  std::uint64_t bits = 0;
  const Operand* elems_data = nullptr;
  std::uint32_t text_size = 0;
  std::uint16_t elems_size = 0;
  OperandKind kind = OperandKind::kSink;
  std::uint8_t flags = 0;

  static constexpr std::uint8_t kNegated = 1;         // `!%p` source predicate
  static constexpr std::uint8_t kHasOffset = 2;       // address has `+off`
  static constexpr std::uint8_t kBaseImmediate = 4;   // address base is an immediate
  static constexpr std::uint8_t kF32Pattern = 8;      // `0f` float: bits hold 32-bit pattern
  static constexpr std::uint8_t kUnified = 16;        // address has the `.unified` suffix
  static constexpr std::uint8_t kSelector = 32;       // register has a video selector in `bits`
  static constexpr std::uint8_t kMinus = 64;          // `-%r2.h0`: vmad's negated source
  static constexpr std::uint8_t kRegisterIndex = 128; // `arr[%r1]`, `arr[%r1+K]`: see above
  static constexpr std::size_t kMaxSelector = 8;      // "b3210" is the longest the ISA has

  std::string_view text() const { return {text_data, text_size}; }
  Span<Operand> elements() const { return {elems_data, elems_size}; }
  bool negated() const { return (flags & kNegated) != 0; }
  bool has_offset() const { return (flags & kHasOffset) != 0; }
  bool address_base_is_immediate() const { return (flags & kBaseImmediate) != 0; }
  bool is_f32_pattern() const { return (flags & kF32Pattern) != 0; }
  bool is_unified() const { return (flags & kUnified) != 0; }
  bool has_selector() const { return (flags & kSelector) != 0; }
  bool minus() const { return (flags & kMinus) != 0; }
  bool has_register_index() const { return (flags & kRegisterIndex) != 0; }
  // 0..3 for a kRegister that names one element of a vector register (`%acc.y` is 1), else -1.
  int vector_element() const {
    return kind == OperandKind::kRegister ? vector_element_index(text()) : -1;
  }
  // `arr[%r1+K]`'s index register (elements()[0]) and constant term K (0 when not written).
  const Operand* index_register() const { return has_register_index() ? &elements()[0] : nullptr; }
  std::int64_t index_constant() const {
    return has_register_index() && elems_size > 1 ? elements()[1].int_value() : 0;
  }
  // The selector without its dot ("b0", "h10"); empty when none. Views this operand's storage.
  std::string_view selector() const {
    if (!has_selector()) return {};
    const char* c = reinterpret_cast<const char*>(&bits);
    std::size_t n = 0;
    while (n < kMaxSelector && c[n] != 0)
      ++n;
    return {c, n};
  }
  std::int64_t int_value() const { return static_cast<std::int64_t>(bits); }
  std::int64_t address_offset() const { return static_cast<std::int64_t>(bits); }
  // The value of a kImmFloat (a `0f` pattern widened to double).
  double float_value() const;
};
static_assert(sizeof(Operand) == 40, "Operand is packed: the AST must stay < 10x the PTX text");

// ---------------------------------------------------------------------------------------------
// Declarations
// ---------------------------------------------------------------------------------------------

// Initializer of a variable: a scalar expression (text normalized: no whitespace but around `%`),
// a brace list, or `generic(sym)` (kind kGeneric, text "sym" ... as written inside the parentheses
// + any offset expression after it is kept in text of a kExpr). `mask()` (`0xFF00(sym+4)`, 5.4.4)
// is a kExpr. A `.texref`/`.samplerref` field (`filter_mode = linear`, 5.3) is a kField whose text
// is "filter_mode = linear".
// Packed to 24 bytes (asserted): a value is a text or a list, never both, so one pointer and one
// size serve both; a 100k-entry lookup table (curand's) is 100k of these.
struct InitValue {
  enum class Kind : std::uint8_t { kExpr, kList, kGeneric, kField };
  SourceLoc loc;
  Kind kind = Kind::kExpr;

  // kExpr: "0f3F800000", "sym+4", "-1"; kGeneric: "sym"; kField: "name = value"; empty for kList.
  std::string_view text() const {
    return kind == Kind::kList ? std::string_view() : std::string_view(text_data(), size_);
  }
  // kList: the elements; empty otherwise.
  Span<InitValue> elements() const {
    return kind == Kind::kList ? Span<InitValue>(static_cast<const InitValue*>(data_), size_)
                               : Span<InitValue>();
  }
  void set_text(std::string_view t) {
    data_ = t.data();
    size_ = static_cast<std::uint32_t>(t.size());
  }
  void set_elements(Span<InitValue> e) {
    data_ = e.data();
    size_ = e.size();
  }

private:
  const char* text_data() const { return static_cast<const char*>(data_); }
  std::uint32_t size_ = 0;
  const void* data_ = nullptr;
};
static_assert(sizeof(InitValue) == 24);

// `[]`: an array dimension of unknown size (.extern .shared arrays, initializer-sized arrays).
inline constexpr std::uint64_t kUnknownDim = ~std::uint64_t{0};

// A variable, register, or parameter declaration; one name per node (the parser splits
// `.reg .b32 %a, %b;` into two). Parameters of .entry/.func are VarDecls with space kParam
// (or kReg for old-style .func register parameters).
// `.attribute(.managed)` / `.attribute(.unified(uuid1, uuid2))` of a variable or function
// (PTX ISA 5.4.8): `__managed__` variables and unified-memory functions carry it.
struct Attributes {
  bool managed = false;
  bool unified = false;
  std::uint64_t uuid1 = 0, uuid2 = 0; // `.unified(uuid1, uuid2)`
};

struct VarDecl {
  SourceLoc loc;
  std::string_view name;                  // "%r", "smem", "_Z3fooPf_param_0", "_" in prototypes
  Span<std::uint64_t> dims;               // array dimensions in order; kUnknownDim for `[]`
  const InitValue* init = nullptr;        // `= ...` or nullptr
  const Attributes* attributes = nullptr; // `.attribute(...)` or nullptr (rare: kept out of line)
  std::uint32_t align = 0;                // `.align N`, 0 when not written
  std::uint32_t range = 0;                // `<N>` of `.reg .b32 %r<N>` when has_range
  std::uint32_t ptr_align = 0;            // `.ptr...align N` of a parameter, 0 when not written
  StateSpace space = StateSpace::kNone;
  Linkage linkage = Linkage::kNone;
  ScalarType type = ScalarType::kUnknown;
  std::uint8_t vector_width = 0; // 0 for scalars, 2/4/8 for .v2/.v4/.v8
  bool has_range = false;
  bool is_ptr = false;                      // parameter carries `.ptr`
  StateSpace ptr_space = StateSpace::kNone; // `.ptr.global` -> kGlobal; kNone = generic

  // Bytes: element size x vector width x product of known dims (unknown dims count as 0).
  std::uint64_t size_in_bytes() const;
  // `.align` if written, else the natural alignment of one element (size x vector width).
  std::uint32_t alignment() const;
};

// ---------------------------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------------------------

// An instruction: `@!%p0 ld.global.nc.v4.f32 {%f1,%f2,%f3,%f4}, [%rd1+16];`
//   opcode "ld", modifiers {"global","nc","v4","f32"}, guard "%p0", guard_negated true.
// The small members last: 80 bytes, not 88 (a Statement is sized by its largest alternative,
// and a large module holds a million of them).
struct Instruction {
  SourceLoc loc;
  std::string_view opcode; // as written
  Span<std::string_view> modifiers;
  Span<Operand> operands;
  std::string_view guard;       // predicate register name; empty when unguarded
  Opcode op = Opcode::kUnknown; // its record in the ISA table (kUnknown: none)
  bool guard_negated = false;

  bool has_modifier(std::string_view m) const;
  // The type modifiers, in order (cvt.s64.s32: {s64, s32}), and the last of them (the operand
  // type of add.u32, mul.wide.s32, setp.lt.s32; kUnknown when none).
  std::vector<isa::Type> types() const;
  isa::Type last_type() const;
  // "ld.global.nc.v4.f32"
  std::string full_opcode() const;
};

// `name:` (a label may also prefix a `.branchtargets`/`.calltargets`/`.callprototype`, which is
// then stored in that Directive/CallPrototype, not as a Label).
struct Label {
  SourceLoc loc;
  std::string_view name;
};

// `.loc file line col [, function_name label] [, inlined_at file line col]`
struct LocDirective {
  SourceLoc loc;
  std::uint32_t file = 0;
  std::uint32_t line = 0;
  std::uint32_t col = 0;
  bool has_inlined_at = false;
  std::uint32_t inlined_file = 0;
  std::uint32_t inlined_line = 0;
  std::uint32_t inlined_col = 0;
  std::string_view function_name; // empty when not written
};

// Any other directive kept verbatim by arguments: `.pragma "nounroll";` (name "pragma", args
// {"\"nounroll\""}), `lbl: .branchtargets L1, L2;` (label "lbl"), `.calltargets`, `.alias a, b;`,
// and unknown module-level directives.
struct Directive {
  SourceLoc loc;
  std::string_view name;       // without the dot
  std::string_view label;      // `label:` before it, or empty
  Span<std::string_view> args; // comma-separated arguments, as spelled (whitespace normalized)
};

// `proto: .callprototype (.param .b32 _) _ (.param .b64 _, .param .b32 _) [.noreturn];`
struct CallPrototype {
  SourceLoc loc;
  std::string_view label;
  std::vector<VarDecl> returns;
  std::vector<VarDecl> params;
  bool noreturn = false;
};

struct Statement;

// `{ ... }`: a function body or a nested scope.
struct Block {
  SourceLoc loc;
  std::vector<Statement> statements;
};

struct Statement {
  std::variant<Instruction, Label, VarDecl, LocDirective, Directive, CallPrototype, Block> node;
};
static_assert(sizeof(Instruction) <= 80 && sizeof(Statement) <= 88,
              "a Statement per source line: keep its alternatives small");

// ---------------------------------------------------------------------------------------------
// Module level
// ---------------------------------------------------------------------------------------------

// `.maxntid 256, 1, 1`, `.reqntid 128`, `.minnctapersm 2`, `.maxnreg 64`, `.maxclusterrank 8`,
// `.reqnctapercluster 2,1,1`, `.explicitcluster`, `.noreturn`, `.pragma "..."` in a header.
struct PerfDirective {
  SourceLoc loc;
  std::string_view name;             // without the dot
  std::vector<std::uint32_t> values; // numeric arguments (empty for .explicitcluster)
  std::string_view text;             // non-numeric argument (`.pragma "nounroll"`), else ""
};

enum class FunctionKind : std::uint8_t { kEntry, kFunc };

struct Function {
  SourceLoc loc;
  Linkage linkage = Linkage::kNone;
  FunctionKind kind = FunctionKind::kEntry;
  std::string_view name;
  std::vector<VarDecl> returns; // .func only: `(.param .b32 retval)`
  std::vector<VarDecl> params;
  std::vector<PerfDirective> directives;  // in the order written
  const Attributes* attributes = nullptr; // `.func .attribute(...)` or nullptr
  bool noreturn = false;                  // .func ... .noreturn
  bool has_body = false;                  // false for declarations ending in `;`
  Block body;

  // The values of the first directive of that name, padded with 1s to three dimensions for
  // maxntid/reqntid/reqnctapercluster; nullopt when absent.
  std::optional<std::array<std::uint32_t, 3>> maxntid() const;
  std::optional<std::array<std::uint32_t, 3>> reqntid() const;
  std::optional<std::array<std::uint32_t, 3>> reqnctapercluster() const;
  std::optional<std::uint32_t> minnctapersm() const;
  std::optional<std::uint32_t> maxnreg() const;
  std::optional<std::uint32_t> maxclusterrank() const;
  const PerfDirective* find_directive(std::string_view name) const;
};

// `.file 1 "/path/a.cu", 1700000000, 1234` (timestamp and size optional).
struct FileDirective {
  SourceLoc loc;
  std::uint32_t index = 0;
  std::string_view path; // the quoted string as written, quotes included
  bool has_timestamp = false;
  std::uint64_t timestamp = 0;
  bool has_size = false;
  std::uint64_t size = 0;
};

// One line of a debug section: a label, or `.b8 1, 2, 3` (consecutive lines of the same type are
// merged into one entry; the printer prints one value per line group as it sees fit).
struct SectionEntry {
  SourceLoc loc;
  std::string_view label;                 // non-empty for `label:`
  ScalarType type = ScalarType::kUnknown; // kB8/kB16/kB32/kB64 (or u-types) for data
  Span<std::string_view> values; // numbers or label expressions (`$L__a-$L__b`, `.debug_abbrev`)
};

// `.section .debug_info { ... }`
struct Section {
  SourceLoc loc;
  std::string_view name; // ".debug_info" (with its dot)
  std::vector<SectionEntry> entries;
};

using TopLevel = std::variant<Function, VarDecl, FileDirective, Section, Directive>;

struct Module {
  std::string path;
  SourceLoc version_loc;
  std::uint32_t version_major = 0;
  std::uint32_t version_minor = 0;
  SourceLoc target_loc;
  std::vector<std::string_view> targets; // {"sm_90a"} or {"sm_80", "debug"}
  SourceLoc address_size_loc;
  std::uint32_t address_size = 0; // 0 when `.address_size` is absent (PTX default 32)
  std::vector<TopLevel> items;    // in source order
  // The comment lines before the first directive (a license, a "generated, do not edit"
  // banner, nvcc's "Generated by NVIDIA NVVM Compiler"), verbatim: `fmt` keeps them. Comments
  // elsewhere are not kept.
  std::string_view leading_comments;

  // Keeps every string_view and Span of this module alive (source text and arena).
  std::shared_ptr<const void> storage;

  const Function* find_function(std::string_view name) const;
  std::vector<const Function*> functions() const;
  std::vector<const Function*> entries() const;
  // "sm_90a" etc.: the first target that starts with "sm_" or "compute_"; "" when none.
  std::string_view sm_target() const;
};

// Structural equality of two modules, ignoring source locations and the path (used to check that
// re-parsing the printed form gives the same tree).
bool equal_ignoring_locations(const Module& a, const Module& b);

} // namespace ptxkit::verifier
