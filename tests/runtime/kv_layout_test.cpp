// The head-major KV cache (TSR_LAYOUT_KV_HEAD_MAJOR), which the packer gives a board whose
// kernels read operands where they lie (mps3-an547): the same results as the row-major
// cache of another board's image, the API's rows in its order, and a cache or step that
// disagrees about the layout refused at open.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "support/packed_image.h"
#include "support/synthetic_model.h"
#include "tessera/image_format.h"

namespace {

using namespace tessera::test;

// The image's tensor table.
tsr_tensor *tensors(AlignedImage &img, uint32_t *count)
{
    const auto &h = *reinterpret_cast<const tsr_image_header *>(img.data());
    const auto *s = reinterpret_cast<const tsr_section *>(img.data() + h.section_table_offset);
    for (uint32_t i = 0; i < h.section_count; ++i)
        if (s[i].kind == TSR_SECTION_TENSORS) {
            *count = h.tensor_count;
            return reinterpret_cast<tsr_tensor *>(img.data() + s[i].file_offset);
        }
    *count = 0;
    return nullptr;
}

std::vector<uint32_t> tensors_in_layout(AlignedImage &img, uint32_t layout, uint32_t kind)
{
    uint32_t n = 0;
    const tsr_tensor *t = tensors(img, &n);
    std::vector<uint32_t> ids;
    for (uint32_t i = 0; i < n; ++i)
        if (t[i].layout == layout && t[i].kind == kind) ids.push_back(i);
    return ids;
}

// Every cached row of every layer, keys then values, as the API gives them.
std::vector<int8_t> cache_rows(tessera_session *s, uint32_t layers, uint32_t kv_dim)
{
    const uint32_t n = tessera_position(s);
    std::vector<int8_t> rows(size_t(layers) * 2u * n * kv_dim);
    for (uint32_t l = 0; l < layers; ++l)
        for (uint32_t kind = 0; kind < 2; ++kind)
            EXPECT_EQ(tessera_kv_read(s, l, kind, 0, n, rows.data() + (size_t(l) * 2u + kind) * n * kv_dim), TESSERA_OK);
    return rows;
}

class KvLayout : public ::testing::Test {
protected:
    void SetUp() override
    {
        const std::string shared = shared_dir();
        if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
        head_ = open_model(stories260k_int8(shared, "mps3-an547", "auto", temp_path("kv_head_major.tess")), 1);
        row_ = open_model(stories260k_int8(shared, "qemu-virt-rv32", "auto", temp_path("kv_row_major.tess")), 1);
        ASSERT_EQ(head_->status, TESSERA_OK) << tessera_last_error(&head_->session);
        ASSERT_EQ(row_->status, TESSERA_OK) << tessera_last_error(&row_->session);
    }
    std::unique_ptr<OpenModel> head_, row_;
    static constexpr uint32_t kLayers = 5, kKvDim = 32; // stories260K: 4 KV heads of 8
};

TEST_F(KvLayout, AHeadMajorCacheGivesTheRowMajorOnesLogitsAndRows)
{
    EXPECT_EQ(tensors_in_layout(head_->image, TSR_LAYOUT_KV_HEAD_MAJOR, TSR_TENSOR_KV_CACHE).size(), 2u * kLayers);
    EXPECT_TRUE(tensors_in_layout(row_->image, TSR_LAYOUT_KV_HEAD_MAJOR, TSR_TENSOR_KV_CACHE).empty());
    // A prompt of two chunks (16 rows a chunk), then greedy steps: logits bit for bit.
    std::vector<int32_t> prompt = {1};
    for (int32_t i = 0; i < 19; ++i) prompt.push_back(32 + 13 * i);
    for (OpenModel *m : {head_.get(), row_.get()})
        ASSERT_EQ(tessera_prompt(&m->session, prompt.data(), uint32_t(prompt.size())), TESSERA_OK);
    for (int step = 0; step < 12; ++step) {
        const float *a = nullptr, *b = nullptr;
        ASSERT_EQ(tessera_logits(&head_->session, TESSERA_LAST_ROW, &a, nullptr), TESSERA_OK);
        ASSERT_EQ(tessera_logits(&row_->session, TESSERA_LAST_ROW, &b, nullptr), TESSERA_OK);
        ASSERT_EQ(std::memcmp(a, b, 512 * sizeof(float)), 0) << "position " << tessera_position(&head_->session);
        int32_t next = 0;
        for (int32_t v = 1; v < 512; ++v) next = a[v] > a[next] ? v : next;
        for (OpenModel *m : {head_.get(), row_.get()}) ASSERT_EQ(tessera_step(&m->session, next), TESSERA_OK);
    }
    // The API reads the cache as rows of every head, in either layout.
    const std::vector<int8_t> rows = cache_rows(&head_->session, kLayers, kKvDim);
    EXPECT_EQ(rows, cache_rows(&row_->session, kLayers, kKvDim));
    EXPECT_GT(std::count_if(rows.begin(), rows.end(), [](int8_t v) { return v != 0; }), int(rows.size() / 2));
}

TEST_F(KvLayout, RowsWrittenThroughTheApiLandInEachHeadsBlock)
{
    // Rows 3..7 of layer 2's values, written into both; then a step reads them.
    std::vector<int8_t> written(5 * kKvDim);
    for (size_t i = 0; i < written.size(); ++i) written[i] = int8_t(i * 37 + 11);
    const int32_t bos = 1;
    for (OpenModel *m : {head_.get(), row_.get()}) {
        ASSERT_EQ(tessera_prompt(&m->session, &bos, 1), TESSERA_OK);
        for (int32_t t : {50, 60, 70, 80, 90, 100, 110}) ASSERT_EQ(tessera_step(&m->session, t), TESSERA_OK);
        ASSERT_EQ(tessera_kv_write(&m->session, 2, 1, 3, 5, written.data()), TESSERA_OK);
        std::vector<int8_t> back(written.size());
        ASSERT_EQ(tessera_kv_read(&m->session, 2, 1, 3, 5, back.data()), TESSERA_OK);
        EXPECT_EQ(back, written);
        ASSERT_EQ(tessera_step(&m->session, 120), TESSERA_OK);
    }
    const float *a = nullptr, *b = nullptr;
    ASSERT_EQ(tessera_logits(&head_->session, TESSERA_LAST_ROW, &a, nullptr), TESSERA_OK);
    ASSERT_EQ(tessera_logits(&row_->session, TESSERA_LAST_ROW, &b, nullptr), TESSERA_OK);
    EXPECT_EQ(std::memcmp(a, b, 512 * sizeof(float)), 0);
    EXPECT_EQ(cache_rows(&head_->session, kLayers, kKvDim), cache_rows(&row_->session, kLayers, kKvDim));
}

// A cache in another layout than its steps say, or the layout on a tensor that is no
// KV cache: refused at open, naming it.
TEST_F(KvLayout, ACacheOrTensorInTheWrongLayoutIsRefused)
{
    AlignedImage img = head_->image;
    uint32_t n = 0;
    const std::vector<uint32_t> caches = tensors_in_layout(img, TSR_LAYOUT_KV_HEAD_MAJOR, TSR_TENSOR_KV_CACHE);
    ASSERT_FALSE(caches.empty());
    tensors(img, &n)[caches[0]].layout = TSR_LAYOUT_ROW_MAJOR;
    resign(img);
    auto m = open_image(img, "mps3-an547", 1);
    EXPECT_EQ(m->status, TESSERA_ERR_IMAGE_BAD_SCHEDULE);
    EXPECT_NE(std::string(tessera_last_error(&m->session)).find("layout"), std::string::npos)
        << tessera_last_error(&m->session);

    img = head_->image;
    const std::vector<uint32_t> weights = tensors_in_layout(img, TSR_LAYOUT_ROW_MAJOR, TSR_TENSOR_WEIGHT);
    ASSERT_FALSE(weights.empty());
    tensors(img, &n)[weights[0]].layout = TSR_LAYOUT_KV_HEAD_MAJOR;
    resign(img);
    m = open_image(img, "mps3-an547", 1);
    EXPECT_EQ(m->status, TESSERA_ERR_IMAGE_BAD_PLACEMENT);
    EXPECT_NE(std::string(tessera_last_error(&m->session)).find("head-major layout on a tensor that is not a KV cache"),
              std::string::npos)
        << tessera_last_error(&m->session);
}

} // namespace
