/* Sanitizer self-check (not a host test): a signed integer overflow, on
 * purpose, after a call into libsense. Under SENSE_SANITIZE=undefined the
 * test `sanitize/self_check` requires UndefinedBehaviorSanitizer to report
 * it and the run to fail. Nothing else compiles it. */
#include "sense.h"

#include <limits.h>
#include <stdio.h>

int main(int argc, char **argv) {
    (void)argv;
    sense_str version = sense_version();
    int n = INT_MAX - 1 + (int)(version.len > 0); /* INT_MAX */
    n += argc;                                     /* overflows */
    printf("%d\n", n);
    return 0;
}
