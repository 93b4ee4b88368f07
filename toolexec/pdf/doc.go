// Package pdf turns Markdown into a PDF file for the create_pdf tool.
//
// The model is a chain of renderers tried best-first. Markdown is converted
// once to HTML with goldmark (GFM tables, strikethrough, autolinks, task
// lists) and wrapped in a print stylesheet; the external engines — headless
// Chrome, Chromium or Edge printing to PDF, then wkhtmltopdf, then weasyprint
// — render that HTML from a temporary file, each under a timeout that kills
// its whole process group. When an engine is missing or fails, the next one
// is tried, and the built-in renderer is the floor that always works: it walks
// the goldmark AST itself and lays the document out with go-pdf/fpdf, using a
// UTF-8 TrueType font found on the machine (with per-character fallback to a
// second font for scripts the first lacks, such as CJK) or, on a machine with
// no usable font, fpdf's core fonts with text narrowed to Windows-1252.
// Relative links and images resolve from the output file's directory in
// both paths; "#id" links to headings become internal links; the built-in
// renderer embeds local PNG, JPEG and GIF images and never fetches remote
// ones. Render reports the engine that really produced the file, so a caller can
// tell the user. Output is written atomically: a temporary file in the target
// directory is renamed over the destination only once the PDF is complete, so
// a failed or interrupted render never leaves a torn file behind.
//
// Raw HTML in the Markdown is not passed through to the browser engines (nor
// drawn by the built-in one): the content usually comes from a model, and a
// headless browser with file:// access should not run what it wrote.
package pdf
