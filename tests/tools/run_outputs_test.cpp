// Hostile input, round three, through the tools as a user meets it (issue 29): a
// comparison that cannot fail, the outputs of one run written together or not at all,
// statuses that name what happened, empty paths, and the memory an npz archive costs.
#include <gtest/gtest.h>

#include <zip.h>

#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/synthetic_model.h"
#include "support/tool_run.h"

namespace {

namespace fs = std::filesystem;
using namespace tessera::test;

std::string tool(const char *name) { return std::string(TESSERA_TOOLS_BUILD_DIR) + "/" + name; }

const std::string kGraph = std::string(TESSERA_SHARED_DIR) + "/deeploy/microLlama/INT8/microLlama1/";

class RunOutputs : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (!fs::exists(kGraph + "network.onnx")) GTEST_SKIP() << "no " << kGraph;
        image_ = temp_path("ro_ml1.tess");
        const ToolRun pack = run_tool(tool("tessera-pack") + " " + kGraph + "network.onnx -q -o " + image_);
        ASSERT_EQ(pack.status, 0) << pack.out;
        vectors_ = " --npz-inputs " + kGraph + "inputs.npz --npz-expect " + kGraph + "outputs.npz";
    }
    std::string image_, vectors_;
};

// Finding 4: --npz-tolerance nan made every comparison pass ("0 differ ... largest
// difference 208"). NaN, negative and infinite tolerances are usage errors.
TEST_F(RunOutputs, ATolerenceThatCannotFailIsAUsageError)
{
    for (const char *t : {"nan", "NaN", "-1", "-0.5", "inf", "1e300"}) {
        const ToolRun r = run_tool(tool("tessera-eval") + " " + image_ + vectors_ + " --npz-tolerance " + t);
        EXPECT_EQ(r.status, 2) << t << ": " << r.out;
        EXPECT_NE(r.out.find("--npz-tolerance"), std::string::npos) << r.out;
    }
    EXPECT_EQ(run_tool(tool("tessera-eval") + " " + image_ + vectors_ + " --npz-tolerance 0 -q").status, 0);
}

// Finding 6: one run's outputs appear together or not at all: an output that fails
// (/dev/full) leaves none of the others written.
TEST_F(RunOutputs, AFailedOutputLeavesNoOtherOutputOfTheRun)
{
    const std::string blob = temp_path("ro_v.bin");
    ToolRun r = run_tool(tool("tessera-eval") + " " + image_ + vectors_ + " --npz-out /dev/full --emit-vectors " + blob);
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_FALSE(fs::exists(blob)) << "--emit-vectors written though --npz-out failed";
    EXPECT_EQ(r.out.find("kernel argument error"), std::string::npos) << "an output's failure is no kernel's: " << r.out;
    EXPECT_NE(r.out.find("/dev/full"), std::string::npos) << r.out;
    const std::string ck = std::string(TESSERA_SHARED_DIR) + "/models/stories260K.bin --tokenizer " +
                           std::string(TESSERA_SHARED_DIR) + "/models/tok512.bin";
    for (const char *flag : {"--report", "--memory-map", "--emit-variants"}) {
        const std::string image = temp_path("ro_a.tess");
        r = run_tool(tool("tessera-pack") + " " + ck + " -o " + image + " " + flag + " /dev/full");
        EXPECT_EQ(r.status, 1) << flag << ": " << r.out;
        EXPECT_FALSE(fs::exists(image)) << flag << " /dev/full left the image written";
    }
}

// Statuses name what happened: an npz whose content is wrong is an input error, not the
// runtime's "invalid argument (status 1)"; an empty path is a usage error, never dropped.
TEST_F(RunOutputs, StatusesAndEmptyPaths)
{
    const std::string bad = temp_path("ro_bad.npz");
    std::ofstream(bad) << "not a zip";
    ToolRun r = run_tool(tool("tessera-eval") + " " + image_ + " --npz-inputs " + bad);
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_EQ(r.out.find("(status"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(bad + ": not an .npz archive (not a zip archive)"), std::string::npos) << r.out;
    for (const std::string &flag : {"--npz-out", "--emit-vectors"}) {
        r = run_tool(tool("tessera-eval") + " " + image_ + vectors_ + " " + flag + " ''");
        EXPECT_EQ(r.status, 2) << flag << ": " << r.out;
        EXPECT_NE(r.out.find("an empty path names no file"), std::string::npos) << r.out;
    }
    r = run_tool(tool("tessera-pack") + " " + kGraph + "network.onnx -o ''");
    EXPECT_EQ(r.status, 2) << r.out;
}

// An int8 array of 2^28 zeros, deflated: a 260 KB archive that decoded to 2.37 GB of
// doubles before its shape was checked. Now it is refused from its header, at the
// image's own sizes, within a small multiple of what the image needs.
TEST_F(RunOutputs, ADeflatedBombCostsLittleMemory)
{
    // The entry: a .npy header and 2^28 zero bytes, deflated in pieces (never held whole).
    std::string header = "{'descr': '|i1', 'fortran_order': False, 'shape': (268435456,), }";
    while ((10 + header.size() + 1) % 64 != 0) header.push_back(' ');
    header.push_back('\n');
    std::string npy("\x93NUMPY\x01\x00", 8);
    npy.push_back(char(header.size() & 0xFF));
    npy.push_back(char(header.size() >> 8));
    npy += header;
    const uint64_t data = uint64_t(1) << 28, size = npy.size() + data;
    z_stream zs{};
    ASSERT_EQ(deflateInit2(&zs, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY), Z_OK); // raw deflate, as zip holds it
    std::string deflated, chunk(1 << 16, '\0');
    uint32_t crc = uint32_t(crc32(0, reinterpret_cast<const Bytef *>(npy.data()), uInt(npy.size())));
    auto feed = [&](const char *p, size_t n, int flush) {
        zs.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(p));
        zs.avail_in = uInt(n);
        do {
            zs.next_out = reinterpret_cast<Bytef *>(chunk.data());
            zs.avail_out = uInt(chunk.size());
            deflate(&zs, flush);
            deflated.append(chunk.data(), chunk.size() - zs.avail_out);
        } while (zs.avail_out == 0);
    };
    feed(npy.data(), npy.size(), Z_NO_FLUSH);
    const std::string zeros(1 << 20, '\0');
    for (uint64_t done = 0; done < data; done += zeros.size()) {
        crc = uint32_t(crc32(crc, reinterpret_cast<const Bytef *>(zeros.data()), uInt(zeros.size())));
        feed(zeros.data(), zeros.size(), done + zeros.size() < data ? Z_NO_FLUSH : Z_FINISH);
    }
    deflateEnd(&zs);
    // The zip container around it: local header, data, central directory, end record.
    auto u16 = [](std::string &s, uint32_t v) { s.push_back(char(v)), s.push_back(char(v >> 8)); };
    auto u32 = [&](std::string &s, uint32_t v) { u16(s, v & 0xFFFF), u16(s, v >> 16); };
    const std::string name = "hidden.npy";
    std::string zip;
    u32(zip, 0x04034b50), u16(zip, 20), u16(zip, 0), u16(zip, 8), u16(zip, 0), u16(zip, 0);
    u32(zip, crc), u32(zip, uint32_t(deflated.size())), u32(zip, uint32_t(size)), u16(zip, uint16_t(name.size())), u16(zip, 0);
    zip += name + deflated;
    const uint32_t central_at = uint32_t(zip.size());
    std::string cd;
    u32(cd, 0x02014b50), u16(cd, 20), u16(cd, 20), u16(cd, 0), u16(cd, 8), u16(cd, 0), u16(cd, 0);
    u32(cd, crc), u32(cd, uint32_t(deflated.size())), u32(cd, uint32_t(size)), u16(cd, uint16_t(name.size()));
    u16(cd, 0), u16(cd, 0), u16(cd, 0), u16(cd, 0), u32(cd, 0), u32(cd, 0);
    cd += name;
    zip += cd;
    u32(zip, 0x06054b50), u16(zip, 0), u16(zip, 0), u16(zip, 1), u16(zip, 1), u32(zip, uint32_t(cd.size())), u32(zip, central_at);
    u16(zip, 0);
    const std::string bomb = temp_path("ro_bomb.npz");
    std::ofstream(bomb, std::ios::binary) << zip;
    EXPECT_LT(zip.size(), 400u << 10) << "the archive is a few hundred KB";
    const ToolRun r = run_tool(std::string(TESSERA_MAX_RSS_BIN) + " " + tool("tessera-eval") + " " + image_ + " --npz-inputs " + bomb);
    const size_t at = r.out.rfind("max_rss_kib ");
    ASSERT_NE(at, std::string::npos) << r.out;
    const long rss_kib = std::atol(r.out.c_str() + at + 12);
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.out.find("268435456 elements, more than the"), std::string::npos) << r.out;
    if (!kAddressSanitizer) EXPECT_LE(rss_kib, 64 * 1024) << "peak RSS " << rss_kib << " KiB for a " << zip.size() << "-byte archive";
    std::printf("tessera-eval on a %zu-byte deflated bomb of 2^28 elements: peak RSS %ld KiB\n", zip.size(), rss_kib);
}

} // namespace
