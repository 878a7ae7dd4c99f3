// usage_errors.cpp: CLI11 parse errors rephrased as the tool's messages (usage_errors.h).
#include "usage_errors.h"

#include "command_registry.h"
#include "diagnostics.h"

#include <cctype>
#include <iostream>
#include <ptxkit/kernels/nearest_name.h>
#include <string_view>
#include <vector>

namespace ptxkit::cli {
namespace {

// The deepest command the parse selected (root itself when none).
const CLI::App* selected_command(const CLI::App& root) {
  const CLI::App* app = &root;
  while (!app->get_subcommands().empty())
    app = app->get_subcommands().front();
  return app;
}

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  return names;
}

std::string joined(const std::vector<std::string>& words, std::string_view separator = ", ") {
  std::string out;
  for (const std::string& w : words)
    out += (out.empty() ? "" : std::string(separator)) + w;
  return out;
}

std::string quoted_list(const std::vector<std::string>& words) {
  std::vector<std::string> quoted;
  for (const std::string& w : words)
    quoted.push_back("'" + w + "'");
  return joined(quoted);
}

bool is_option_word(const std::string& arg) {
  return arg.size() > 1 && arg[0] == '-';
}

// CLI11 starts its sentences with a capital ("Could not convert", "A subcommand"), the tool's
// messages never do; a word in capitals (KERNEL, a metavar) is a name and stays as it is. The
// same holds after a leading `--option: `, where CLI11 puts the option's name first.
std::string lowercase_sentence(std::string message) {
  auto lower_at = [&](std::size_t i) {
    if (i + 1 < message.size() && std::isupper(static_cast<unsigned char>(message[i])) &&
        std::islower(static_cast<unsigned char>(message[i + 1])))
      message[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(message[i])));
  };
  lower_at(0);
  if (const std::size_t colon = message.find(": ");
      colon != std::string::npos && message.find(' ') == colon + 1)
    lower_at(colon + 2);
  return message;
}

// Splits `text` at its first `marker` into `before` and `after`; false when it has none.
bool split_at(const std::string& text, std::string_view marker, std::string& before,
              std::string& after) {
  const std::size_t at = text.find(marker);
  if (at == std::string::npos) return false;
  before = text.substr(0, at);
  after = text.substr(at + marker.size());
  return true;
}

// A command with commands of its own (`golden`, or the tool) was given none, or an unknown one.
std::string missing_command(const CLI::App& root, const CLI::App& app) {
  const std::vector<std::string> names = command_names(app);
  const std::string words = selected_command_words(root);
  const std::string kind = words.empty() ? "command" : words + " command";
  // CLI11 leaves an unknown command word over instead of reporting it: name it.
  const std::vector<std::string> left = root.remaining(true);
  if (!left.empty() && !is_option_word(left.front()))
    return "unknown " + kind + " '" + left.front() + "'" +
           kernels::did_you_mean(left.front(), names) + "; valid " + kind + "s: " + joined(names);
  return words.empty() ? "no command given; commands: " + joined(names)
                       : words + " needs a command: " + joined(names);
}

// "The following arguments were not expected: ..." names neither what they are nor in order;
// the arguments themselves are still in the apps' lists of what was left over.
std::string extra_arguments(const CLI::App& root, const CLI::ParseError& e) {
  std::vector<std::string> options, others;
  for (const std::string& arg : root.remaining(true))
    (is_option_word(arg) ? options : others).push_back(arg);
  std::vector<std::string> parts;
  if (!options.empty())
    parts.push_back((options.size() == 1 ? "unknown option " : "unknown options ") +
                    quoted_list(options));
  if (!others.empty())
    parts.push_back((others.size() == 1 ? "unexpected argument " : "unexpected arguments ") +
                    quoted_list(others));
  return parts.empty() ? lowercase_sentence(e.what()) : joined(parts, "; ");
}

// "Could not convert: --jobs = x" -> "invalid value 'x' for --jobs: expected a whole number".
std::string conversion(const CLI::App& app, const CLI::ParseError& e) {
  std::string head, rest, name, value;
  if (!split_at(e.what(), "Could not convert: ", head, rest) || !head.empty() ||
      !split_at(rest, " = ", name, value))
    return lowercase_sentence(e.what());
  std::string expected;
  if (const CLI::Option* opt = app.get_option_no_throw(name)) {
    const std::string type = opt->get_type_name();
    expected = type == "N" ? "a whole number" : type;
  }
  return "invalid value '" + value + "' for " + name + (expected.empty() ? "" : ": expected ") +
         expected;
}

// "--format: xml not in {text,json,sarif}" -> "invalid value 'xml' for --format; valid values:
// text, json, sarif" (with the nearest one when it is close).
std::string validation(const CLI::ParseError& e) {
  std::string name, rest, value, set;
  if (!split_at(e.what(), ": ", name, rest) || !split_at(rest, " not in {", value, set) ||
      set.empty() || set.back() != '}')
    return lowercase_sentence(e.what());
  set.pop_back();
  std::vector<std::string> valid;
  std::string item;
  for (char c : set + ",") {
    if (c != ',') {
      item += c;
    } else if (!item.empty()) {
      valid.push_back(item);
      item.clear();
    }
  }
  return "invalid value '" + value + "' for " + name + kernels::did_you_mean(value, valid) +
         "; valid values: " + joined(valid);
}

// "--set: 1 required FIELD=VALUE missing" -> "--set needs a value: FIELD=VALUE".
std::string argument_count(const CLI::ParseError& e) {
  std::string name, rest, count, type;
  if (split_at(e.what(), ": ", name, rest) && split_at(rest, " required ", count, type) &&
      type.ends_with(" missing")) {
    type.resize(type.size() - 8);
    return name + (count == "1" ? " needs a value" : " needs " + count + " values") +
           (type.empty() ? "" : ": " + type);
  }
  return lowercase_sentence(e.what());
}

// "--all excludes --out-dir" -> "--all cannot be combined with --out-dir".
std::string excluded(const CLI::ParseError& e) {
  std::string first, second;
  if (!split_at(e.what(), " excludes ", first, second)) return lowercase_sentence(e.what());
  return first + " cannot be combined with " + second;
}

} // namespace

std::string selected_command_words(const CLI::App& root) {
  std::string words;
  for (const CLI::App* app = &root; !app->get_subcommands().empty();) {
    app = app->get_subcommands().front();
    words += (words.empty() ? "" : " ") + app->get_name();
  }
  return words;
}

std::string parse_error_message(const CLI::App& root, const CLI::ParseError& e) {
  const CLI::App& app = *selected_command(root);
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr &&
      app.get_require_subcommand_min() > 0)
    return missing_command(root, app);
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) return extra_arguments(root, e);
  if (dynamic_cast<const CLI::ConversionError*>(&e) != nullptr) return conversion(app, e);
  if (dynamic_cast<const CLI::ValidationError*>(&e) != nullptr) return validation(e);
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr) return argument_count(e);
  if (dynamic_cast<const CLI::ExcludesError*>(&e) != nullptr) return excluded(e);
  return lowercase_sentence(e.what());
}

int report_parse_error(const CLI::App& root, const CLI::ParseError& e) {
  const std::string name(program_name());
  const std::string words = selected_command_words(root);
  std::cerr << name << ": error: " << parse_error_message(root, e) << '\n'
            << name << ": run `" << name << (words.empty() ? "" : " " + words)
            << " --help` for usage\n";
  return kExitBadInput;
}

} // namespace ptxkit::cli
