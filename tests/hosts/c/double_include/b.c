/* See a.c. */
#include <sense.h>
#include <sense.h>

int version_len_from_b(void);

int version_len_from_b(void) {
    return (int)sense_version().len;
}
