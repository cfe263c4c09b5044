// The packer's front ends, one table: each recognises its files by their content, loads
// them, lowers the model to a Graph (calibrating where it must) and describes it for
// summaries and reports. Every path of the packer (pack, --dry-run, --report,
// calibration) reaches a model through read_model, never through a front end by name.
#ifndef TESSERA_PACK_FRONT_END_H
#define TESSERA_PACK_FRONT_END_H

#include <memory>
#include <string>
#include <vector>

#include "tessera/models/graph.h"
#include "tessera/models/llama2c.h" // Vocabulary
#include "tessera/pack/pack_options.h"

namespace tessera {

struct PackOptions;

// What a model is, as a front end read it: the words of the summary and the report.
struct ModelDescription {
    std::string front_end;   // the table's row: "llama2.c checkpoint", "GGUF", "Hugging Face directory", "ONNX graph"
    std::string format;      // "llama2.c legacy", "GGUF v3 ...", "ONNX (QuantLib integer decoder, S 1, ...)"
    ModelHyper hyper;        // dim .. seq_len, shared_classifier, decoder_only (the model's, before --context)
    std::string tokenizer;   // where the vocabulary came from, or why there is none
    // The precision the model is packed at whatever the command line says (a graph that is
    // integerized already), or empty when --precision chooses.
    std::string fixed_precision;
};

// One model, loaded once: every plan of a pack or a dry run lowers it again.
class LoadedModel {
public:
    virtual ~LoadedModel() = default;
    virtual const ModelDescription &description() const = 0;
    virtual const Vocabulary &vocabulary() const = 0;
    // Files read besides the model path that nothing may overwrite (a tokenizer found by name).
    virtual std::vector<std::string> other_inputs() const { return {}; }
    // Refuses options this model cannot take: OptionError (a usage error) for a flag that
    // its format makes meaningless, InputError for values it cannot honour.
    virtual void check_options(const PackOptions &o) const = 0;
    // The context the plan gets without --context.
    virtual uint32_t default_context() const = 0;
    // The graph for `o`. `sizing_only`: a dry run's trial (an int8 model's scales from BOS
    // alone: they change no size). Fills `calibration` (what calibrated it) and
    // `calibration_seconds` where it calibrates. Throws PlanError for arithmetic that does
    // not fit the variants (int8 lowering), InputError for options it refuses.
    virtual Graph lower(const PackOptions &o, bool sizing_only, std::string &calibration, double &calibration_seconds) = 0;
    // The next lower() is the model's last: it may consume the weights it read instead of
    // copying them (a pack holds one copy of a large model's weights, not two).
    virtual void lowering_for_the_last_time() {}
};

struct FrontEnd {
    const char *name;        // "GGUF"
    const char *recognised;  // how it knows its files: "the magic GGUF"
    bool (*recognises)(const std::string &path);
    std::unique_ptr<LoadedModel> (*load)(const PackOptions &o);
};

// The table, in the order files are tried.
const std::vector<FrontEnd> &front_ends();

// The model at o.checkpoint through the first front end that recognises it. Throws
// InputError naming every format tried when none does (an empty file, random bytes).
std::unique_ptr<LoadedModel> read_model(const PackOptions &o);

} // namespace tessera

#endif
