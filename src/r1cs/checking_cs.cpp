// SPDX-License-Identifier: Apache-2.0
// checking_cs: naming, storage and satisfaction checks. See
// include/cuzk/r1cs/checking_cs.hpp.

#include <stdexcept>

#include <cuzk/r1cs/checking_cs.hpp>

namespace cuzk::r1cs {

std::string checking_cs::make_path(std::string_view name) const {
  if (name.find('/') != std::string_view::npos)
    throw std::logic_error("r1cs: '/' is not allowed in names: " + std::string(name));
  std::string path;
  for (const std::string& ns : _namespace) {
    path += ns;
    path += '/';
  }
  path += name;
  return path;
}

void checking_cs::register_path(const std::string& path, named_object obj) {
  if (!_names.emplace(path, obj).second)
    throw std::logic_error("r1cs: tried to create object at existing path: " + path);
}

variable checking_cs::add_variable(bool input, std::string path, const fr& v) {
  const variable var = input ? variable::input(_inputs.size()) : variable::aux(_aux.size());
  register_path(path, {object_kind::variable, var.raw()});
  (input ? _inputs : _aux).push_back(v);
  return var;
}

void checking_cs::add_constraint(std::string path, const linear_combination& a, const linear_combination& b,
                                 const linear_combination& c) {
  for (const linear_combination* lc : {&a, &b, &c})
    for (const term& t : lc->terms())
      if (t.var.index() >= (t.var.is_input() ? _inputs.size() : _aux.size()))
        throw std::logic_error("r1cs: constraint '" + path + "' uses a variable that was never allocated");
  register_path(path, {object_kind::constraint, _constraint_paths.size()});
  for (const linear_combination* lc : {&a, &b, &c}) {
    _terms.insert(_terms.end(), lc->terms().begin(), lc->terms().end());
    _lc_begin.push_back(_terms.size());
  }
  _constraint_paths.push_back(std::move(path));
}

void checking_cs::open_namespace(std::string name) {
  register_path(make_path(name), {object_kind::name_space, 0});
  _namespace.push_back(std::move(name));
}

void checking_cs::pop_namespace() {
  if (_namespace.empty()) throw std::logic_error("r1cs: pop_namespace without a namespace");
  _namespace.pop_back();
}

std::string checking_cs::current_namespace() const {
  std::string path;
  for (std::size_t i = 0; i < _namespace.size(); ++i) {
    if (i) path += '/';
    path += _namespace[i];
  }
  return path;
}

fr checking_cs::evaluate(std::span<const term> lc) const {
  fr acc = fr::zero();
  for (const term& t : lc) acc += value(t.var) * t.coeff;
  return acc;
}

checking_cs::constraint_view checking_cs::constraint(std::size_t i) const {
  if (i >= num_constraints()) throw std::out_of_range("r1cs: no such constraint");
  auto side = [&](std::size_t k) {
    return std::span<const term>(_terms.data() + _lc_begin[3 * i + k], _terms.data() + _lc_begin[3 * i + k + 1]);
  };
  return {side(0), side(1), side(2), _constraint_paths[i]};
}

std::optional<std::size_t> checking_cs::first_unsatisfied() const {
  for (std::size_t i = 0; i < num_constraints(); ++i) {
    const constraint_view k = constraint(i);
    if (evaluate(k.a) * evaluate(k.b) != evaluate(k.c)) return i;
  }
  return std::nullopt;
}

std::optional<std::string> checking_cs::which_is_unsatisfied() const {
  if (auto i = first_unsatisfied()) return _constraint_paths[*i];
  return std::nullopt;
}

const fr& checking_cs::value(variable v) const {
  const auto& values = v.is_input() ? _inputs : _aux;
  if (v.index() >= values.size()) throw std::out_of_range("r1cs: variable was never allocated");
  return values[v.index()];
}

void checking_cs::set(variable v, const fr& value) {
  auto& values = v.is_input() ? _inputs : _aux;
  if (v.index() >= values.size()) throw std::out_of_range("r1cs: variable was never allocated");
  values[v.index()] = value;
}

std::optional<variable> checking_cs::find_variable(std::string_view path) const {
  auto it = _names.find(std::string(path));
  if (it == _names.end() || it->second.kind != object_kind::variable) return std::nullopt;
  return variable::from_raw(it->second.id);
}

const fr& checking_cs::get(std::string_view path) const {
  if (auto v = find_variable(path)) return value(*v);
  throw std::out_of_range("r1cs: no variable exists at path: " + std::string(path));
}

void checking_cs::set(std::string_view path, const fr& value) {
  if (auto v = find_variable(path)) return set(*v, value);
  throw std::out_of_range("r1cs: no variable exists at path: " + std::string(path));
}

}  // namespace cuzk::r1cs
