package pdf

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	// Decoders for the formats Markdown documents commonly embed.
	_ "image/gif"
	_ "image/jpeg"

	"github.com/go-pdf/fpdf"
	"github.com/yuin/goldmark/ast"
)

// maxImagePixels bounds decoded image size: a small file can claim a huge
// canvas, and decoding it would take the memory of the whole server.
const maxImagePixels = 40_000_000

// maxImageBytes bounds the file read before decoding.
const maxImageBytes = 32 << 20

// loadImage reads a local raster image for the built-in renderer and
// re-encodes it as an 8-bit non-interlaced PNG, the one form fpdf embeds
// without fail (it rejects interlaced and 16-bit PNGs, and an fpdf error
// would spoil the whole document). Remote images are not fetched: the
// floor must work offline and promptly.
func loadImage(dest, baseDir string) ([]byte, image.Point, error) {
	p, err := localImagePath(dest, baseDir)
	if err != nil {
		return nil, image.Point{}, err
	}
	fi, err := os.Stat(p)
	if err != nil {
		return nil, image.Point{}, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxImageBytes {
		return nil, image.Point{}, fmt.Errorf("image %s: not a regular file of at most %d MiB", p, maxImageBytes>>20)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, image.Point{}, err
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, image.Point{}, fmt.Errorf("image %s: %w", p, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > maxImagePixels {
		return nil, image.Point{}, fmt.Errorf("image %s: %dx%d pixels is outside 1..%d", p, cfg.Width, cfg.Height, maxImagePixels)
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, image.Point{}, fmt.Errorf("image %s: %w", p, err)
	}
	b := img.Bounds()
	rgba := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(rgba, rgba.Bounds(), img, b.Min, draw.Src)
	var out bytes.Buffer
	if err := png.Encode(&out, rgba); err != nil {
		return nil, image.Point{}, fmt.Errorf("image %s: %w", p, err)
	}
	return out.Bytes(), image.Pt(b.Dx(), b.Dy()), nil
}

// localImagePath resolves a Markdown image destination to a file: a
// relative path is taken from baseDir, the directory the PDF is written
// to, as the HTML engines do through <base>.
func localImagePath(dest, baseDir string) (string, error) {
	u, err := url.Parse(dest)
	if err != nil {
		return "", err
	}
	switch u.Scheme {
	case "file":
		return filepath.FromSlash(u.Path), nil
	case "":
		p, err := url.PathUnescape(u.Path)
		if err != nil {
			p = dest
		}
		if filepath.IsAbs(p) {
			return p, nil
		}
		return filepath.Join(baseDir, filepath.FromSlash(p)), nil
	}
	return "", errors.New("remote image not fetched")
}

// soleImage returns the image a paragraph consists of, if it is only that.
func soleImage(n ast.Node, src []byte) *ast.Image {
	var img *ast.Image
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Image:
			if img != nil {
				return nil
			}
			img = c
		case *ast.Text:
			if strings.TrimSpace(string(c.Value(src))) != "" {
				return nil
			}
		default:
			return nil
		}
	}
	return img
}

// imageBlock draws a paragraph that is a single local image, scaled to fit
// the column and the page. It reports false when the image cannot be
// used, so the caller falls back to the alt text.
func (r *renderer) imageBlock(img *ast.Image) bool {
	data, px, err := loadImage(string(img.Destination), r.baseDir)
	if err != nil {
		return false
	}
	r.images++
	name := fmt.Sprintf("img%d", r.images)
	info := r.doc.RegisterImageOptionsReader(name, fpdf.ImageOptions{ImageType: "PNG"}, bytes.NewReader(data))
	if info == nil || r.doc.Err() {
		return false
	}
	// 96 dpi is how a browser sizes an image without explicit size.
	w := float64(px.X) * 72 / 96
	h := float64(px.Y) * 72 / 96
	if maxW := r.right - r.left; w > maxW {
		h, w = h*maxW/w, maxW
	}
	if maxH := (r.bottom - r.top) * 0.9; h > maxH {
		w, h = w*maxH/h, maxH
	}
	r.gap(blockGap)
	y := r.beginLine(h)
	r.doc.ImageOptions(name, r.left, y, w, h, false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
	return true
}
