/* Pulls in the installed header; its directory comes from pkg-config
 * (`sense.pc`'s Cflags). */
#include <sense.h>
