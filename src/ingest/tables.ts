/**
 * Tables become one line per row. With a header row each cell is written "Header: value", so a
 * row still makes sense when the chunker puts it in a chunk far away from the header line.
 */

export interface GridCell {
  text: string;
  /** Same value for every grid slot a merged (colspan/rowspan) cell covers. */
  source?: unknown;
}

const SEPARATOR = ' | ';

function rowCells(row: GridCell[]): Array<{ cell: GridCell; column: number }> {
  const out: Array<{ cell: GridCell; column: number }> = [];
  row.forEach((cell, column) => {
    // A colspan repeats the same source cell across columns; say it once per row.
    const previous = row[column - 1];
    if (column > 0 && previous && cell.source !== undefined && previous.source === cell.source) return;
    out.push({ cell, column });
  });
  return out;
}

export function formatTable(grid: GridCell[][], hasHeader: boolean): string {
  const rows = grid.filter((row) => row.some((c) => c.text !== ''));
  if (rows.length === 0) return '';
  const lines: string[] = [];
  const header = hasHeader && rows.length > 1 ? rows[0] : undefined;
  if (header) lines.push(rowCells(header).map(({ cell }) => cell.text).filter(Boolean).join(SEPARATOR));

  for (const row of header ? rows.slice(1) : rows) {
    const parts = rowCells(row)
      .filter(({ cell }) => cell.text !== '')
      .map(({ cell, column }) => {
        const name = header?.[column]?.text;
        return name && name !== cell.text ? `${name}: ${cell.text}` : cell.text;
      });
    if (parts.length > 0) lines.push(parts.join(SEPARATOR));
  }
  return lines.join('\n');
}

/** Plain string rows (Markdown tables), first row being the header. */
export function formatStringTable(rows: string[][], hasHeader: boolean): string {
  return formatTable(rows.map((row) => row.map((text) => ({ text }))), hasHeader);
}
