/**
 * Set to 'on' (transaction-local) by a retention sweep: the one deleter the append-only tables
 * (security events, the audit log) admit. Their delete triggers read it.
 */
export const RETENTION_SWEEP_SETTING = 'meeting_accounts.retention_sweep';
