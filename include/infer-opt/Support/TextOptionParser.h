//===- TextOptionParser.h - pass options of types with a text form -*- C++ -*-===//
//
// A pass or pipeline option of a struct type (a tile plan, a tuned-plans
// file, a target) is parsed from its text once, where the option is set,
// and printed back in the same form when a pipeline is printed. A type
// opts in with a specialization of llvm::cl::parser deriving from
// TextOptionParser<T, Traits>, where Traits has
//   static std::string parse(llvm::StringRef text, T &value); // error or ""
//   static void print(llvm::raw_ostream &os, const T &value);
// An empty text is the type's default (what an option left unset prints).
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_SUPPORT_TEXTOPTIONPARSER_H
#define INFER_OPT_SUPPORT_TEXTOPTIONPARSER_H

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::infer {

template <typename T, typename Traits>
class TextOptionParser : public llvm::cl::basic_parser<T> {
public:
  using llvm::cl::basic_parser<T>::basic_parser;

  bool parse(llvm::cl::Option &option, llvm::StringRef, llvm::StringRef arg, T &value) {
    value = T();
    if (arg.trim().empty())
      return false;
    std::string error = Traits::parse(arg, value);
    return !error.empty() && option.error(error);
  }

  static void print(llvm::raw_ostream &os, const T &value) { Traits::print(os, value); }

  void printOptionDiff(const llvm::cl::Option &option, const T &value,
                       const llvm::cl::OptionValue<T> &, size_t width) const {
    this->printOptionName(option, width);
    print(llvm::outs(), value);
    llvm::outs() << "\n";
  }
};

} // namespace mlir::infer

#endif // INFER_OPT_SUPPORT_TEXTOPTIONPARSER_H
