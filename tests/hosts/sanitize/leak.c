/* Sanitizer self-check (not a host test): this program leaks a value that
 * libsense allocated, on purpose. Under SENSE_SANITIZE=address the test
 * `sanitize/self_check` requires LeakSanitizer to report it, with a stack
 * reaching into libsense, and the run to fail. Nothing else compiles it. */
#include "sense.h"

#include <stdio.h>

int main(void) {
    sense_value *v = NULL;
    if (sense_value_new_string("leaked", 6, &v, NULL) != SENSE_STATUS_OK) {
        fprintf(stderr, "sense_value_new_string failed\n");
        return 2;
    }
    v = NULL; /* the only reference is gone: a definite leak */
    return 0;
}
