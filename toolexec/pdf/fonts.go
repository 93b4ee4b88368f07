package pdf

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// fontFiles is what font discovery found: one UTF-8 TrueType family for
// body text (missing styles fall back to the regular file), a monospace
// face, and fallback faces for characters the body font lacks.
type fontFiles struct {
	Regular, Bold, Italic, BoldItalic string
	Mono, MonoBold                    string
	Fallbacks                         []string
}

// family describes a body font family by file base names.
type family struct {
	regular, bold, italic, boldItalic string
}

// Candidate families in order of preference: DejaVu has the widest
// coverage of the common free fonts; the rest are what other systems ship.
var sansFamilies = []family{
	{"DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-Oblique.ttf", "DejaVuSans-BoldOblique.ttf"},
	{"NotoSans-Regular.ttf", "NotoSans-Bold.ttf", "NotoSans-Italic.ttf", "NotoSans-BoldItalic.ttf"},
	{"LiberationSans-Regular.ttf", "LiberationSans-Bold.ttf", "LiberationSans-Italic.ttf", "LiberationSans-BoldItalic.ttf"},
	{"FreeSans.ttf", "FreeSansBold.ttf", "FreeSansOblique.ttf", "FreeSansBoldOblique.ttf"},
	{"arial.ttf", "arialbd.ttf", "ariali.ttf", "arialbi.ttf"},
	{"Arial.ttf", "Arial Bold.ttf", "Arial Italic.ttf", "Arial Bold Italic.ttf"},
}

var monoFamilies = [][2]string{
	{"DejaVuSansMono.ttf", "DejaVuSansMono-Bold.ttf"},
	{"NotoSansMono-Regular.ttf", "NotoSansMono-Bold.ttf"},
	{"LiberationMono-Regular.ttf", "LiberationMono-Bold.ttf"},
	{"FreeMono.ttf", "FreeMonoBold.ttf"},
	{"consola.ttf", "consolab.ttf"},
	{"cour.ttf", "courbd.ttf"},
	{"Courier New.ttf", "Courier New Bold.ttf"},
}

// fallbackNames are single TrueType files (not .ttc/.otf, which fpdf cannot
// embed) covering CJK and symbols, tried for characters the body font lacks.
var fallbackNames = []string{
	"DejaVuSans.ttf", // symbols, when the body font is another family
	"DroidSansFallbackFull.ttf", "DroidSansFallback.ttf",
	"ipagp.ttf", "ipag.ttf", "VL-Gothic-Regular.ttf", "TakaoPGothic.ttf",
	"NanumGothic.ttf", "UnDotum.ttf", "unifont.ttf",
	"FreeSerif.ttf", "FreeSans.ttf", "Symbola.ttf",
	"arialuni.ttf", "ARIALUNI.TTF", "Arial Unicode.ttf", "msgothic.ttf", "simsun.ttf",
}

// fontDirs lists where fonts usually live; they are walked once per process.
func fontDirs() []string {
	home, _ := os.UserHomeDir()
	dirs := []string{"/usr/share/fonts", "/usr/local/share/fonts", "/usr/X11R6/lib/X11/fonts",
		"/Library/Fonts", "/System/Library/Fonts", "/System/Library/Fonts/Supplemental"}
	if home != "" {
		dirs = append(dirs, filepath.Join(home, ".local/share/fonts"), filepath.Join(home, ".fonts"),
			filepath.Join(home, "Library/Fonts"))
	}
	if xdg := os.Getenv("XDG_DATA_HOME"); xdg != "" {
		dirs = append(dirs, filepath.Join(xdg, "fonts"))
	}
	if runtime.GOOS == "windows" {
		if windir := os.Getenv("WINDIR"); windir != "" {
			dirs = append(dirs, filepath.Join(windir, "Fonts"))
		}
	}
	return dirs
}

var (
	// discoverOnce guards discovered: fonts are looked for once per process,
	// since walking font directories and running fc-match is slow and the
	// set of installed fonts rarely changes under a running server.
	discoverOnce sync.Once
	discovered   fontFiles
)

// discoverFontsHook lets tests substitute the discovered set (for example
// an empty one, to exercise the core-font path).
var discoverFontsHook func() fontFiles

func systemFonts() fontFiles {
	if discoverFontsHook != nil {
		return discoverFontsHook()
	}
	discoverOnce.Do(func() { discovered = discoverFonts(fontDirs()) })
	return discovered
}

// discoverFonts indexes .ttf files under dirs by base name and picks the
// first usable family; when none of the known names exists it asks
// fontconfig (fc-match) for whatever sans and monospace fonts it would use.
func discoverFonts(dirs []string) fontFiles {
	index := map[string]string{}
	for _, dir := range dirs {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if d != nil && d.IsDir() && p != dir {
					return fs.SkipDir
				}
				return nil
			}
			if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".ttf") {
				if _, dup := index[d.Name()]; !dup {
					index[d.Name()] = p
				}
			}
			return nil
		})
	}
	usable := func(name string) string {
		p := index[name]
		if p == "" {
			return ""
		}
		if _, err := loadFace(p); err != nil {
			return ""
		}
		return p
	}

	var ff fontFiles
	for _, fam := range sansFamilies {
		if r := usable(fam.regular); r != "" {
			ff.Regular = r
			ff.Bold = usable(fam.bold)
			ff.Italic = usable(fam.italic)
			ff.BoldItalic = usable(fam.boldItalic)
			break
		}
	}
	for _, fam := range monoFamilies {
		if r := usable(fam[0]); r != "" {
			ff.Mono = r
			ff.MonoBold = usable(fam[1])
			break
		}
	}
	if ff.Regular == "" {
		ff.Regular = fcMatch("sans-serif")
		if ff.Regular != "" {
			ff.Bold = fcMatch("sans-serif:bold")
			ff.Italic = fcMatch("sans-serif:italic")
			ff.BoldItalic = fcMatch("sans-serif:bold:italic")
		}
	}
	if ff.Mono == "" {
		ff.Mono = fcMatch("monospace")
		if ff.Mono != "" {
			ff.MonoBold = fcMatch("monospace:bold")
		}
	}
	seen := map[string]bool{ff.Regular: true}
	addFallback := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			ff.Fallbacks = append(ff.Fallbacks, p)
		}
	}
	for _, name := range fallbackNames {
		addFallback(usable(name))
	}
	for _, lang := range []string{":lang=ja", ":lang=zh-cn", ":lang=ko", "symbol"} {
		addFallback(fcMatch(lang))
	}
	return ff
}

// fcMatch asks fontconfig for a font file and keeps it only if fpdf can
// embed it (a TrueType-outline .ttf with a Unicode cmap).
func fcMatch(pattern string) string {
	bin, err := exec.LookPath("fc-match")
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "-f", "%{file}", pattern).Output()
	if err != nil {
		return ""
	}
	p := strings.TrimSpace(string(out))
	if !strings.EqualFold(filepath.Ext(p), ".ttf") {
		return ""
	}
	if _, err := loadFace(p); err != nil {
		return ""
	}
	return p
}

// face is a parsed font file: its bytes (for fpdf) and which runes of the
// Basic Multilingual Plane it has glyphs for.
type face struct {
	path  string
	data  []byte
	cover *runeSet
}

var (
	// faceMu guards faceCache, shared by concurrent renders.
	faceMu    sync.Mutex
	faceCache = map[string]*face{}
)

// loadFace reads and checks a font file once per process.
func loadFace(path string) (*face, error) {
	faceMu.Lock()
	defer faceMu.Unlock()
	if f, ok := faceCache[path]; ok {
		if f == nil {
			return nil, fmt.Errorf("font %s: unusable", path)
		}
		return f, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		faceCache[path] = nil
		return nil, fmt.Errorf("font %s: %w", path, err)
	}
	cover, err := parseCoverage(data)
	if err != nil {
		faceCache[path] = nil
		return nil, fmt.Errorf("font %s: %w", path, err)
	}
	f := &face{path: path, data: data, cover: cover}
	faceCache[path] = f
	return f, nil
}

// runeSet is a bitmap over the Basic Multilingual Plane, the only plane
// fpdf's UTF-8 font support can address.
type runeSet [65536 / 64]uint64

func (s *runeSet) has(r rune) bool {
	return r >= 0 && r < 65536 && s[r>>6]&(1<<(uint(r)&63)) != 0
}

func (s *runeSet) add(r int) {
	if r >= 0 && r < 65536 {
		s[r>>6] |= 1 << (uint(r) & 63)
	}
}

var errNotEmbeddable = errors.New("not an embeddable TrueType font")

// parseCoverage reads the cmap of a TrueType file, choosing the subtable
// the way fpdf does (the first Unicode or Windows-Unicode subtable in
// format 4), so the coverage we compute is the one fpdf will render with.
// It also rejects what fpdf cannot embed: CFF outlines, collections, and
// fonts missing the tables its subsetter reads.
func parseCoverage(data []byte) (*runeSet, error) {
	u16 := func(off int) (int, bool) {
		if off < 0 || off+2 > len(data) {
			return 0, false
		}
		return int(binary.BigEndian.Uint16(data[off:])), true
	}
	u32 := func(off int) (int, bool) {
		if off < 0 || off+4 > len(data) {
			return 0, false
		}
		return int(binary.BigEndian.Uint32(data[off:])), true
	}
	ver, ok := u32(0)
	if !ok || (ver != 0x00010000 && ver != 0x74727565) {
		return nil, fmt.Errorf("%w (signature %#x)", errNotEmbeddable, ver)
	}
	numTables, _ := u16(4)
	tables := map[string]int{}
	for i := 0; i < numTables; i++ {
		rec := 12 + 16*i
		if rec+16 > len(data) {
			return nil, fmt.Errorf("%w: truncated table directory", errNotEmbeddable)
		}
		off, _ := u32(rec + 8)
		tables[string(data[rec:rec+4])] = off
	}
	for _, need := range []string{"cmap", "glyf", "loca", "head", "hhea", "hmtx", "maxp"} {
		if _, ok := tables[need]; !ok {
			return nil, fmt.Errorf("%w: no %s table", errNotEmbeddable, need)
		}
	}
	cmap := tables["cmap"]
	n, ok := u16(cmap + 2)
	if !ok {
		return nil, fmt.Errorf("%w: truncated cmap", errNotEmbeddable)
	}
	sub := -1
	for i := 0; i < n; i++ {
		rec := cmap + 4 + 8*i
		platform, ok1 := u16(rec)
		encoding, ok2 := u16(rec + 2)
		off, ok3 := u32(rec + 4)
		if !ok1 || !ok2 || !ok3 {
			break
		}
		if (platform == 3 && encoding == 1) || platform == 0 {
			if format, ok := u16(cmap + off); ok && format == 4 {
				sub = cmap + off
				break
			}
		}
	}
	if sub < 0 {
		return nil, fmt.Errorf("%w: no Unicode format-4 cmap", errNotEmbeddable)
	}
	segX2, ok := u16(sub + 6)
	if !ok || segX2 == 0 {
		return nil, fmt.Errorf("%w: bad cmap", errNotEmbeddable)
	}
	seg := segX2 / 2
	ends := sub + 14
	starts := ends + segX2 + 2
	deltas := starts + segX2
	ranges := deltas + segX2
	if ranges+segX2 > len(data) {
		return nil, fmt.Errorf("%w: truncated cmap", errNotEmbeddable)
	}
	set := new(runeSet)
	for i := 0; i < seg; i++ {
		end, _ := u16(ends + 2*i)
		start, _ := u16(starts + 2*i)
		delta, _ := u16(deltas + 2*i)
		rangeOff, _ := u16(ranges + 2*i)
		for c := start; c <= end && c <= 0xFFFF; c++ {
			var glyph int
			if rangeOff == 0 {
				glyph = (c + delta) & 0xFFFF
			} else {
				g, ok := u16(ranges + 2*i + rangeOff + 2*(c-start))
				if !ok {
					continue
				}
				if g != 0 {
					glyph = (g + delta) & 0xFFFF
				}
			}
			if glyph != 0 {
				set.add(c)
			}
		}
	}
	return set, nil
}
