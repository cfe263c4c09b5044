// Issue 7's tokenizer reproducers end to end (checkpoint -> packer -> image -> C API),
// and a model whose tokenizer has no " " piece generating as the double-precision
// reference says it must.
#include <gtest/gtest.h>

#include <algorithm>

#include "support/packed_image.h"
#include "support/reference_llama.h"
#include "support/reference_tokenizer.h"
#include "support/synthetic_model.h"

namespace {

using namespace tessera::test;

tessera::PackOptions synthetic_model(const std::string &name, const SyntheticConfig &c, const TokenizerSpec &tok)
{
    tessera::PackOptions o;
    o.checkpoint = temp_path(name + ".bin");
    o.tokenizer = temp_path(name + ".tok");
    o.output = temp_path(name + ".tess");
    write_legacy_checkpoint(o.checkpoint, c, make_weights(c));
    write_tokenizer(o.tokenizer, tok);
    return o;
}

// The first reproducer: dim 16, hidden 32, 1 layer, 2 heads, 1 KV head, vocab 10,
// seq_len 32, a 10-piece tokenizer with " " and no byte pieces. Encoding "zzz"
// overflowed the stack; it is now refused, and what the vocabulary spells runs.
TEST(HostileInput, TenPieceVocabularyRefusesWhatItCannotSpell)
{
    SyntheticConfig c;
    c.dim = 16, c.hidden_dim = 32, c.n_layers = 1, c.n_heads = 2, c.n_kv_heads = 1, c.vocab_size = 10, c.seq_len = 32;
    TokenizerSpec tok;
    tok.vocab_size = 10;
    tok.byte_pieces = false;
    auto m = open_model(synthetic_model("ten_pieces", c, tok));
    ASSERT_EQ(m->status, TESSERA_OK) << tessera_last_error(&m->session);
    int32_t ids[32];
    uint32_t n = 0;
    EXPECT_EQ(tessera_encode(&m->session, "zzz", true, false, ids, 32, &n), TESSERA_ERR_UNENCODABLE_TEXT);
    EXPECT_STREQ(tessera_last_error(&m->session),
                 "tessera_encode: text byte 0x7a at offset 0 has no piece, and the vocabulary has no byte piece for it");
    ASSERT_EQ(tessera_encode(&m->session, "bad", true, false, ids, 32, &n), TESSERA_OK);
    EXPECT_EQ(std::vector<int32_t>(ids, ids + n), (std::vector<int32_t>{1, 3, 5, 4, 7})); // <s> " " b a d
    EXPECT_EQ(tessera_prompt(&m->session, ids, n), TESSERA_OK) << tessera_last_error(&m->session);
}

// Greedy ids of the reference model as generate_greedy returns them: the prompt
// after BOS, then argmax until `steps` positions. Fails the test if the top two
// logits come close enough to swap under float arithmetic, where a comparison
// would mean nothing.
std::vector<int32_t> reference_greedy(const SyntheticConfig &c, const SyntheticWeights &w,
                                      const std::vector<int32_t> &prompt, uint32_t steps)
{
    ReferenceLlama ref(c, w);
    std::vector<int32_t> out(prompt.begin() + 1, prompt.end());
    int32_t token = prompt[0];
    for (uint32_t pos = 0; pos < steps; ++pos) {
        const std::vector<double> logits = ref.forward(token);
        if (pos + 1 < prompt.size()) {
            token = prompt[pos + 1];
            continue;
        }
        std::vector<double> top = logits;
        std::partial_sort(top.begin(), top.begin() + 2, top.end(), std::greater<>());
        EXPECT_GT(top[0] - top[1], 1e-3) << "near-tie at position " << pos;
        token = int32_t(std::max_element(logits.begin(), logits.end()) - logits.begin());
        out.push_back(token);
    }
    return out;
}

// Item 4: a tokenizer with no " " piece was refused at open; it runs from BOS, and
// with a prompt whose dummy-prefix space is its byte piece.
TEST(HostileInput, TokenizerWithoutASpacePieceGeneratesAsTheReference)
{
    SyntheticConfig c;
    c.seed = 12;
    c.shared_classifier = false; // a classifier of its own: greedy ids that wander
    TokenizerSpec tok;
    tok.space_piece = false;
    const tessera::PackOptions o = synthetic_model("no_space", c, tok);
    const SyntheticWeights w = make_weights(c);
    auto m = open_model(o);
    ASSERT_EQ(m->status, TESSERA_OK) << tessera_last_error(&m->session);
    const uint32_t steps = uint32_t(c.seq_len);

    EXPECT_EQ(generate_greedy(*m, {1}, steps), reference_greedy(c, w, {1}, steps));

    ASSERT_EQ(tessera_reset(&m->session), TESSERA_OK);
    std::vector<int32_t> ids(steps);
    uint32_t n = 0;
    ASSERT_EQ(tessera_encode(&m->session, "the cat", true, false, ids.data(), steps, &n), TESSERA_OK);
    ids.resize(n);
    const auto vocab = tessera::read_llama2c_tokenizer(o.tokenizer, uint32_t(c.vocab_size));
    EXPECT_EQ(ids, *ReferenceTokenizer(vocab).encode("the cat", true, false));
    ASSERT_GE(n, 2u);
    EXPECT_EQ(ids[1], 0x20 + 3); // the prefix space as its byte piece <0x20>
    EXPECT_EQ(generate_greedy(*m, ids, steps), reference_greedy(c, w, ids, steps));
}

} // namespace
