import { sql, type Kysely } from 'kysely';

/**
 * An uploaded file's parts are stored uncompressed (out of line, as before). Compressing a 4 MB
 * part of text took ~250 ms of the embedded database's one session against ~50 ms to store it as
 * it is (PGlite over the wire server, `pg` binary parameters); under issue 26's attack a part took
 * up to 0.7 s while other organisations' queries waited. PDF, DOCX and ZIP bytes are already
 * compressed and gain nothing; text files take about twice the disk. Parts stored before stay
 * compressed until rewritten.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table document_files alter column bytes set storage external`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table document_files alter column bytes set storage extended`.execute(db);
}
