/** What an account may do beyond its own data. Granted by `npm run admin` or by an ADMIN, never to oneself. */
export enum Role {
  USER = 'USER',
  /** Finds accounts, reads them (each read is audited) and ends their sessions. */
  SUPPORT = 'SUPPORT',
  /** SUPPORT, and blocks, unblocks, deletes accounts, sets roles and reads the audit log. */
  ADMIN = 'ADMIN',
}
