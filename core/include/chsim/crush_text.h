// SPDX-License-Identifier: Apache-2.0
// CRUSH maps in the text form `crushtool -d` writes and `crushtool -c` reads
// (Ceph 16.2): tunables, devices, types, buckets and rules.
//
// ParseMap accepts what crushtool -c accepts, within what chsim models
// (chsim/crush.h), and refuses the rest in one line naming the file and line:
//  - what crushtool refuses: a parse error, an unknown tunable, a name defined
//    twice, a bucket of an undefined type, an item or a rule's take naming
//    nothing defined before it, a rule's type undefined, a device weight
//    above 100, a weight that is negative or not a number, bucket weights
//    that overflow, a bucket id used twice;
//  - what chsim does not model, saying so: bucket algorithms other than
//    straw2, hashes other than rjenkins1 (0), device classes in a rule's
//    take, choose_args (weight sets), choose_local_fallback_tries other than
//    0 (a map that states no tunables has Ceph's legacy ones, whose fallback
//    is 5: state the modern ones);
//  - what crushtool accepts but leaves ambiguous: a device id or a type id
//    given twice.
// Weights read as crushtool reads them: the decimal to the nearest float,
// times 0x10000, truncated.
//
// FormatMap writes a map so that crushtool -c compiles it to the same map
// (weights exact while they are below 2^24 / 0x10000 = 256 per item, or
// whole numbers).
#ifndef CHSIM_CRUSH_TEXT_H_
#define CHSIM_CRUSH_TEXT_H_

#include <string>
#include <string_view>

#include "chsim/crush.h"

namespace chsim::crush {

// Throws std::invalid_argument "FILE:LINE: <what was found>; <what is
// accepted>" (FILE: `file`).
Map ParseMap(std::string_view text, std::string_view file);

std::string FormatMap(const Map& map);

}  // namespace chsim::crush

#endif  // CHSIM_CRUSH_TEXT_H_
