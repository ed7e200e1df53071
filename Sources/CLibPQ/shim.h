#include <libpq-fe.h>

// The PG_DIAG_* field codes are character-literal macros, which Swift does not import.
static inline int rcs_pq_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
static inline int rcs_pq_diag_message_primary(void) { return PG_DIAG_MESSAGE_PRIMARY; }
static inline int rcs_pq_diag_message_detail(void) { return PG_DIAG_MESSAGE_DETAIL; }
static inline int rcs_pq_diag_constraint_name(void) { return PG_DIAG_CONSTRAINT_NAME; }
