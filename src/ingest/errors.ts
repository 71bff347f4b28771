/**
 * The ingestion job retries anything that throws, except PermanentIngestError: retrying cannot fix
 * a password-protected PDF or an image renamed to .txt. Its message is written for the end user
 * (it becomes the document's failure reason), so it names the problem, not the library that saw it.
 */

export type PermanentIngestCode =
  | 'empty_file'
  | 'unsupported_type'
  | 'type_mismatch'
  | 'pdf_encrypted'
  | 'pdf_damaged'
  | 'docx_damaged'
  | 'docx_doctype'
  | 'no_text'
  | 'too_large'
  | 'conversion_rejected'
  | 'ocr_unavailable'
  | 'plan_limit_exceeded';

export class PermanentIngestError extends Error {
  override readonly name = 'PermanentIngestError';

  constructor(
    readonly code: PermanentIngestCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isPermanentIngestError(err: unknown): err is PermanentIngestError {
  return err instanceof PermanentIngestError;
}
