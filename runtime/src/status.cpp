#include "tessera/tessera.h"

const char *tessera_status_string(tessera_status status)
{
    switch (status) {
    case TESSERA_OK: return "ok";
    case TESSERA_ERR_INVALID_ARGUMENT: return "invalid argument";
    case TESSERA_ERR_NOT_OPEN: return "session not open";
    case TESSERA_ERR_IMAGE_TRUNCATED: return "image truncated";
    case TESSERA_ERR_IMAGE_BAD_MAGIC: return "not a Tessera image (bad magic)";
    case TESSERA_ERR_IMAGE_BAD_VERSION: return "unsupported image format version";
    case TESSERA_ERR_IMAGE_BAD_CHECKSUM: return "image checksum mismatch";
    case TESSERA_ERR_IMAGE_BAD_HEADER: return "invalid image header field";
    case TESSERA_ERR_IMAGE_BAD_SECTION: return "invalid image section table";
    case TESSERA_ERR_IMAGE_BAD_PLACEMENT: return "buffer placed outside its region";
    case TESSERA_ERR_IMAGE_BAD_SCHEDULE: return "invalid schedule step";
    case TESSERA_ERR_IMAGE_BAD_TOKENIZER: return "invalid tokenizer section";
    case TESSERA_ERR_IMAGE_MISALIGNED: return "image buffer misaligned";
    case TESSERA_ERR_WRONG_BOARD: return "image planned for another board";
    case TESSERA_ERR_BOARD_TOO_SMALL: return "board smaller than the plan";
    case TESSERA_ERR_HAL: return "hardware layer error";
    case TESSERA_ERR_IMAGE_UNSUPPORTED: return "image needs a feature this runtime lacks";
    case TESSERA_ERR_CONTEXT_FULL: return "context full";
    case TESSERA_ERR_BAD_TOKEN: return "token id outside the vocabulary";
    case TESSERA_ERR_BUFFER_TOO_SMALL: return "output buffer too small";
    case TESSERA_ERR_NO_LOGITS: return "no logits";
    case TESSERA_ERR_KERNEL: return "kernel argument error";
    case TESSERA_ERR_UNENCODABLE_TEXT: return "text not encodable with this vocabulary";
    }
    return "unknown status";
}
