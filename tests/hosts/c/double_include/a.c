/* Two translation units include sense.h (twice each) and link together:
 * the header must hold declarations only. */
#include <sense.h>
#include <sense.h>

#include <stdio.h>

int version_len_from_b(void);

int main(void) {
    sense_str v = sense_version();
    if ((int)v.len != version_len_from_b()) {
        printf("0 passed, 1 failed\n");
        return 1;
    }
    printf("1 passed, 0 failed\n");
    return 0;
}
