// The host side's errors, one family. Each carries a complete one-line message, what
// failed and where ("config.json: rope_theta: expected a number above 0 ..."); its
// type says whose it is, so a tool can catch them apart or all at once as Error. The
// freestanding runtime has none: it returns a tessera_status and a message.
#ifndef TESSERA_ERRORS_H
#define TESSERA_ERRORS_H

#include <stdexcept>

namespace tessera {

struct Error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// An input the user gave cannot be used: a checkpoint, a tokenizer, a calibration
// text, an option's value.
struct InputError : Error {
    using Error::Error;
};

// An option the input makes meaningless (--precision int8 on a graph that is fp32 as
// it stands): the command line's error, exit status 2 like any usage error.
struct OptionError : InputError {
    using InputError::InputError;
};

// A board description cannot be used (unreadable, not the schema, out of range).
struct BoardError : Error {
    using Error::Error;
};

// The model does not fit the board: a region, the flash, a tile in L1.
struct PlanError : Error {
    using Error::Error;
};

} // namespace tessera

#endif
