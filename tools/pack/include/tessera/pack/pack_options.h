// The packer's choices as types, each with the one table of the names the command line
// and the reports use: a name is turned into its value once, where the command line is
// parsed (parse_option), and printed from the same table (option_name).
#ifndef TESSERA_PACK_PACK_OPTIONS_H
#define TESSERA_PACK_PACK_OPTIONS_H

#include <cstddef>
#include <string>
#include <vector>

#include "tessera/errors.h"

namespace tessera {

enum class Precision { kFp32, kBf16, kInt8 };              // activations and KV cache
enum class Nonlinear { kInteger, kFloat };                  // int8: softmax, RMSNorm and SiLU
enum class ExpKind { kAccurate, kSchraudolph };             // bf16: the exponential of softmax and SiLU
enum class WeightType { kFp32, kBf16, kInt4 };              // matmul weights (int4: W4A8, with int8)
enum class Scenario { kAuto, kSingleCore, kCluster, kNpu, kNpuNms }; // engines (engines.h)

template <typename E> struct OptionName {
    const char *name;
    E value;
};
inline constexpr OptionName<Precision> kPrecisionNames[] = {
    {"fp32", Precision::kFp32}, {"bf16", Precision::kBf16}, {"int8", Precision::kInt8}};
inline constexpr OptionName<Nonlinear> kNonlinearNames[] = {{"integer", Nonlinear::kInteger}, {"float", Nonlinear::kFloat}};
inline constexpr OptionName<ExpKind> kExpNames[] = {{"accurate", ExpKind::kAccurate}, {"schraudolph", ExpKind::kSchraudolph}};
inline constexpr OptionName<WeightType> kWeightTypeNames[] = {
    {"fp32", WeightType::kFp32}, {"bf16", WeightType::kBf16}, {"int4", WeightType::kInt4}};
inline constexpr OptionName<Scenario> kScenarioNames[] = {{"auto", Scenario::kAuto},
                                                          {"single-core", Scenario::kSingleCore},
                                                          {"cluster", Scenario::kCluster},
                                                          {"npu", Scenario::kNpu},
                                                          {"npu-nms", Scenario::kNpuNms}};

template <typename E, size_t N> const char *option_name(const OptionName<E> (&table)[N], E value)
{
    for (const OptionName<E> &o : table)
        if (o.value == value) return o.name;
    return "?";
}

// "fp32, bf16, int8": the names, for messages and the command line's checks.
template <typename E, size_t N> std::string option_names(const OptionName<E> (&table)[N])
{
    std::string out;
    for (const OptionName<E> &o : table) out += std::string(out.empty() ? "" : ", ") + o.name;
    return out;
}

// The names as a list (the command line's IsMember checks).
template <typename E, size_t N> std::vector<std::string> option_list(const OptionName<E> (&table)[N])
{
    std::vector<std::string> out;
    for (const OptionName<E> &o : table) out.push_back(o.name);
    return out;
}

// The value named `name`; InputError("<what> 'x' is not one of ...") otherwise.
template <typename E, size_t N> E parse_option(const OptionName<E> (&table)[N], const std::string &name, const char *what)
{
    for (const OptionName<E> &o : table)
        if (name == o.name) return o.value;
    throw InputError(std::string(what) + " '" + name + "' is not one of " + option_names(table));
}

inline const char *name_of(Precision v) { return option_name(kPrecisionNames, v); }
inline const char *name_of(Nonlinear v) { return option_name(kNonlinearNames, v); }
inline const char *name_of(ExpKind v) { return option_name(kExpNames, v); }
inline const char *name_of(WeightType v) { return option_name(kWeightTypeNames, v); }
inline const char *name_of(Scenario v) { return option_name(kScenarioNames, v); }

} // namespace tessera

#endif
