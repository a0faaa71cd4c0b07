// The floor's reads (bench/load.ts), in one place for every bench that does the floor's work by
// hand: the same SQL as the app's prepared statements, written out.

export const FLOOR_SQL = {
  session: "SELECT * FROM user_session WHERE id = ?1 LIMIT 1",
  book: "SELECT * FROM book WHERE id = ?1 LIMIT 1",
  /** The app's my-books query: activation + book + newest version in one join, newest first. */
  heldBooks: `SELECT a.id AS a_id, a.created_at AS a_created_at, a.book_id AS a_book_id, a.user_uuid AS a_user_uuid,
          a.qr_code_id AS a_qr_code_id, a.updated_at AS a_updated_at,
          b.id, b.title, b.author, b.isbn, b.description, b.language, b.cover_sha256, b.cover_size,
          b.cover_width, b.cover_height, b.cover_updated_at, b.created_at, b.updated_at,
          v.id AS v_id, v.book_id AS v_book_id, v.version_code AS v_version_code, v.version_name AS v_version_name,
          v.release_notes AS v_release_notes, v.archive_sha256 AS v_archive_sha256, v.archive_size AS v_archive_size,
          v.archive_filename AS v_archive_filename, v.archive_uploaded_at AS v_archive_uploaded_at,
          v.archive_format AS v_archive_format, v.archive_epub AS v_archive_epub,
          v.created_at AS v_created_at, v.updated_at AS v_updated_at
   FROM activation a JOIN book b ON b.id = a.book_id
   LEFT JOIN book_version v ON v.id = (SELECT newer.id FROM book_version newer WHERE newer.book_id = b.id
                                       AND newer.archive_sha256 IS NOT NULL ORDER BY newer.version_code DESC LIMIT 1)
   WHERE a.user_uuid = ?1 ORDER BY a.created_at DESC, a.id DESC`,
} as const;
