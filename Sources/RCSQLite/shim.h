#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro that casts -1 to a function pointer; Swift cannot import it.
static inline sqlite3_destructor_type rcs_sqlite_transient(void) { return SQLITE_TRANSIENT; }
