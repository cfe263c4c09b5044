#include "device_tokenizer.h"

#include <cstring>

#include <gtest/gtest.h>

#include "tessera/pack/image_writer.h"

namespace tessera::test {

DeviceTokenizer::DeviceTokenizer(const std::string &path, uint32_t vocab, uint32_t context)
    : DeviceTokenizer(read_llama2c_tokenizer(path, vocab), context)
{
}

DeviceTokenizer::DeviceTokenizer(const Vocabulary &v, uint32_t context) : vocab_(v), context_(context)
{
    const auto section = build_tokenizer_section(vocab_);
    storage_.assign(section.size() / 4 + 1, 0);
    std::memcpy(storage_.data(), section.data(), section.size());
    work_.resize(tsr_encode_work_bytes(context, v.max_token_length) / 4);
    char msg[160];
    tsr::Message err(msg, sizeof msg);
    status_ = tsr::read_tokenizer_section(reinterpret_cast<const uint8_t *>(storage_.data()), uint32_t(section.size()),
                                          uint32_t(vocab_.pieces.size()), &view_, err);
}

std::vector<int32_t> DeviceTokenizer::encode(const std::string &text, bool bos, bool eos, tessera_status *st,
                                             std::string *message)
{
    std::vector<int32_t> ids(context_);
    uint32_t n = 0;
    char msg[192];
    tsr::Message err(msg, sizeof msg);
    const tsr::EncodeOptions opt{bos, eos, 1, 2, context_, merge_, reinterpret_cast<uint8_t *>(work_.data()),
                                 uint32_t(work_.size() * 4)};
    const tessera_status got = tsr::tokenizer_encode(view_, opt, text.c_str(), ids.data(), uint32_t(ids.size()), &n, err);
    if (st) *st = got;
    else EXPECT_EQ(got, TESSERA_OK) << msg;
    if (message) *message = msg;
    ids.resize(got == TESSERA_OK ? n : 0);
    return ids;
}

std::string DeviceTokenizer::decode(const std::vector<int32_t> &ids) const
{
    std::string out;
    for (size_t i = 1; i < ids.size(); ++i) {
        uint32_t len = 0;
        const char *p = tsr::tokenizer_decode(view_, 1, ids[i - 1], ids[i], &len);
        out.append(p, len);
    }
    return out;
}

} // namespace tessera::test
