/** An export as a file to download (the same bytes the CLI prints), never cached or sniffed. */
export function downloadResponse(out: { body: string; contentType: string; filename: string }): Response {
  return new Response(out.body, {
    headers: {
      "content-type": out.contentType,
      "content-disposition": `attachment; filename="${out.filename}"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
}
