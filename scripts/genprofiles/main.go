// Command genprofiles regenerates every shipped operator's profiles, index
// and docs page from the sources named in profiles/catalog.yaml (a
// maintainer tool; upstream files are never committed). With -check it only
// compares and exits 1 on any difference. An operator whose source is not on
// this machine is skipped with a message.
//
// Sources: a directory per release tag, <crds>/<operator>/RELEASES.txt
// ("vX.Y.Z date" per line) and <crds>/<operator>/<tag>/*.yaml, where a
// release folder may be partial (CRD files it lacks are as in the newest
// earlier folder); or a bare git mirror, <mirrors>/<mirror>/repo, read blob
// by blob at every release tag the catalog selects.
//
// Every YAML profile and index under -out, of every operator (generated in
// this run or not), also gets its compiled form beside it (<name>.bin,
// operators.CompileFile): the binary embeds those, and -check fails when
// one is stale.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/operators/extract"
)

func main() {
	catFile := flag.String("catalog", "profiles/catalog.yaml", "catalog of operators and their upstream sources")
	crds := flag.String("crds", "../shared/crds", "directory of raw CRDs per operator release (operators with source: dir)")
	mirrors := flag.String("mirrors", "../.mirror", "directory of bare git mirrors, <mirror>/repo (operators with source: mirror)")
	out := flag.String("out", "profiles", "profiles directory to write or check")
	docs := flag.String("docs", "docs/operators", "directory of the generated operator pages")
	check := flag.Bool("check", false, "compare with the files in -out and -docs instead of writing")
	learned := flag.String("learned", "scripts/learned", "directory of learned webhook mutations, <operator>/<tag>.yaml (scripts/learn-webhooks.sh)")
	only := flag.String("operators", "", "comma-separated operators to generate (default: every catalog entry)")
	newest := flag.String("newest-crds", "", "instead of generating, copy the CRD files of each mirrored operator's newest release into this directory, <operator>/<tag>/*.yaml")
	origins := flag.String("origins", "", "instead of generating, check that each learned release of a mirrored operator was learned from its tag's commit, asking this Go module proxy (URL) which commit it made a module version from")
	flag.Parse()
	cat, err := readCatalog(*catFile)
	if err != nil {
		fail(err)
	}
	want := map[string]bool{}
	for _, n := range strings.Split(*only, ",") {
		if n != "" {
			want[n] = true
		}
	}
	bad, done := 0, 0
	selected := len(want) > 0
	for i := range cat.Operators {
		e := &cat.Operators[i]
		if selected && !want[e.Name] {
			continue
		}
		delete(want, e.Name)
		var files map[string][]byte
		switch e.Source {
		case "dir":
			if *newest != "" || *origins != "" {
				continue // already laid out as a directory of CRDs; no tags to check learned releases against
			}
			dir := filepath.Join(*crds, e.Name)
			if _, err := os.Stat(dir); err != nil {
				fmt.Printf("%s: skipped, %s not found\n", e.Name, dir)
				continue
			}
			files, err = generate(dir, e, e.describe())
		case "mirror":
			gitDir := filepath.Join(*mirrors, e.Mirror, "repo")
			if _, err := os.Stat(gitDir); err != nil {
				fmt.Printf("%s: skipped, mirror %s not found (git clone --mirror https://%s %s)\n", e.Name, gitDir, e.Repository, gitDir)
				continue
			}
			if *origins != "" {
				n, err := checkOrigins(e, newMirror(gitDir), *learned, *origins)
				if err != nil {
					fail(fmt.Errorf("%s: %v", e.Name, err))
				}
				bad += n
				continue
			}
			if *newest != "" {
				tag, err := writeNewest(e, newMirror(gitDir), *newest)
				if err != nil {
					fail(fmt.Errorf("%s: %v", e.Name, err))
				}
				fmt.Printf("%s: the CRDs of %s written to %s\n", e.Name, tag, filepath.Join(*newest, e.Name, tag))
				continue
			}
			files, err = generateMirror(e, newMirror(gitDir), *learned)
		}
		if err != nil {
			fail(fmt.Errorf("%s: %v", e.Name, err))
		}
		done++
		dir := filepath.Join(*out, e.Name)
		if *check {
			bad += compare(dir, files)
			continue
		}
		if err := write(dir, files); err != nil {
			fail(err)
		}
		fmt.Printf("%s: %d files written to %s\n", e.Name, len(files), dir)
	}
	for n := range want {
		fail(fmt.Errorf("operator %q is not in %s", n, *catFile))
	}
	if *origins != "" {
		if bad > 0 {
			fmt.Fprintf(os.Stderr, "genprofiles: %d learned release(s) were learned from another commit than their tag's\n", bad)
			os.Exit(1)
		}
		return
	}
	if *newest != "" {
		return
	}
	stale, err := compiledForms(*out, *check)
	if err != nil {
		fail(err)
	}
	bad += stale
	pages, err := docPages(*out)
	if err != nil {
		fail(err)
	}
	if *check {
		bad += compare(*docs, pages)
	} else {
		if err := write(*docs, pages); err != nil {
			fail(err)
		}
		fmt.Printf("docs: %d pages written to %s\n", len(pages), *docs)
	}
	if bad > 0 {
		fmt.Fprintf(os.Stderr, "genprofiles: %d file(s) differ from what the sources give; run scripts/gen-profiles.sh and commit the result\n", bad)
		os.Exit(1)
	}
	if *check {
		fmt.Printf("genprofiles: the shipped profiles of %d operator(s), every docs page and every compiled form match their sources\n", done)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "genprofiles: %v\n", err)
	os.Exit(1)
}

// release is one release: tag is its version (v1.2.3), ref the git tag
// that holds it (tag itself, or with the catalog's tags.prefix).
type release struct{ tag, date, ref string }

func readReleases(dir string) ([]release, error) {
	f, err := os.Open(filepath.Join(dir, "RELEASES.txt"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []release
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		r := release{tag: fields[0]}
		if len(fields) > 1 {
			r.date = fields[1]
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

// generate returns file name -> content for one operator.
func generate(dir string, e *entry, source string) (map[string][]byte, error) {
	op := e.Name
	rels, err := readReleases(dir)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var tags []string
	for _, e := range entries {
		if e.IsDir() {
			tags = append(tags, e.Name())
		}
	}
	sort.Slice(tags, func(i, j int) bool { return operators.CompareVersions(tags[i], tags[j]) < 0 })

	files := map[string][]byte{}
	// CRDs by name: a later folder's copy replaces the earlier one, so
	// partial folders overlay their predecessors whatever the file names.
	current := map[string]apiextv1.CustomResourceDefinition{}
	var prev *operators.Profile
	var points []string
	for _, tag := range tags {
		yamls, err := filepath.Glob(filepath.Join(dir, tag, "*.yaml"))
		if err != nil {
			return nil, err
		}
		for _, y := range yamls {
			data, err := os.ReadFile(y)
			if err != nil {
				return nil, err
			}
			crds, err := extract.ParseCRDs([]extract.CRDFile{{Name: filepath.Join(op, tag, filepath.Base(y)), Data: data}})
			if err != nil {
				return nil, err
			}
			for _, c := range crds {
				current[c.Name] = c
			}
		}
		var crds []apiextv1.CustomResourceDefinition
		for _, name := range sortedKeys(current) {
			crds = append(crds, current[name])
		}
		e.setConversion(tag, crds)
		p, err := extract.Profile(op, tag, crds)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", tag, err)
		}
		if prev != nil && operators.SameRules(prev, p) {
			continue
		}
		p.Description = fmt.Sprintf("Admission defaults of %s %s: CRD schema defaults of every served version, generated by 'cmp-defaults profiles extract' from %s at %s.", op, tag, source, tag)
		b, err := operators.Marshal(p)
		if err != nil {
			return nil, err
		}
		files[tag+".yaml"] = b
		points = append(points, tag)
		prev = p
	}
	b, err := indexFile(&entry{Name: op, Repository: source}, rels, points, nil, nil)
	if err != nil {
		return nil, err
	}
	files["index.yaml"] = b
	return files, nil
}

// indexFile lists every release checked and the change point in force for it.
func indexFile(e *entry, rels []release, points []string, hooks []operators.Webhook, mutations map[string]string) ([]byte, error) {
	source := e.Repository
	if len(e.Paths) > 0 {
		source = e.describe()
	}
	if e.MutationsOnly {
		source = e.Repository + " " + strings.Join(e.Webhooks.Manifest, ", ") + ", the mutations learned from " + e.Webhooks.Module
	}
	ix := operators.Index{APIVersion: operators.APIVersion, Kind: operators.KindIndex, Operator: e.Name,
		Source: source + " (every release below was checked)", Webhooks: hooks}
	for _, r := range rels {
		pv := ""
		for _, pt := range points {
			if operators.CompareVersions(pt, r.tag) <= 0 {
				pv = pt
			}
		}
		if pv == "" {
			return nil, fmt.Errorf("release %s is older than the first stored CRDs %s", r.tag, points[0])
		}
		ix.Releases = append(ix.Releases, operators.Release{Version: r.tag, Date: r.date, Profile: pv, Mutations: mutations[r.tag]})
	}
	return operators.Marshal(&ix)
}

func sortedKeys(m map[string]apiextv1.CustomResourceDefinition) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func write(dir string, files map[string][]byte) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func compare(dir string, files map[string][]byte) int {
	bad := 0
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, want) {
			fmt.Fprintf(os.Stderr, "differs: %s\n", filepath.Join(dir, name))
			bad++
		}
	}
	existing, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	for _, e := range existing {
		if _, ok := files[filepath.Base(e)]; !ok {
			fmt.Fprintf(os.Stderr, "not generated (remove it): %s\n", e)
			bad++
		}
	}
	return bad
}
