// The scenario of the Go client that oapi-codegen generates from openapi/openapi.json (package
// jsondocs, generated beside this file by scripts/check-generated-clients.sh): every operation of the
// description, called through the generated methods as they are, against a running service.
// Usage: scenario <base URL> <file to list the requests in>, with the service's admin token in
// JSONDOCS_ADMIN_TOKEN (sent with every request). Exits 1 on the first broken expectation. The helpers are in
// expect.go.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"time"

	"jsondocs/generated-clients/jsondocs"
)

var (
	ctx         = context.Background()
	etagPattern = regexp.MustCompile(`^"[0-9]+"$`)
)

func main() {
	if len(os.Args) != 3 || os.Getenv("JSONDOCS_ADMIN_TOKEN") == "" {
		fail("usage: JSONDOCS_ADMIN_TOKEN=<token> scenario <base URL> <requests file>")
	}
	rec := &recorder{}
	// Access is enforced: every request carries the admin token, but the one that checks a refusal.
	adminToken := os.Getenv("JSONDOCS_ADMIN_TOKEN")
	bearer := func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+adminToken)
		return nil
	}
	client := must(jsondocs.NewClientWithResponses(os.Args[1], jsondocs.WithHTTPClient(rec), jsondocs.WithRequestEditorFn(bearer)))
	anonymous := must(jsondocs.NewClientWithResponses(os.Args[1]))
	documents(client)
	operations(client)
	problems(client)
	listingBatchesExpiry(client)
	served(client, anonymous)
	schemas(client)
	queries(client)
	tokens(client)
	must(0, os.WriteFile(os.Args[2], []byte(strings.Join(rec.lines, "\n")+"\n"), 0o644))
	fmt.Printf("go client: %d requests, every expectation met\n", len(rec.lines))
}

const key = "gouser:1"

func documents(c *jsondocs.ClientWithResponses) {
	var document any = map[string]any{"name": "Ann", "tags": []string{"a"}, "age": 30}
	created := must(c.PutDocumentWithResponse(ctx, key, &jsondocs.PutDocumentParams{}, document))
	expectStatus("create", created.HTTPResponse, 201)
	expectEqual("create Location", *created.Headers201.Location, "/docs/gouser:1")
	etag := *created.Headers201.ETag
	if !etagPattern.MatchString(etag) {
		fail("create ETag %q", etag)
	}
	expectJSON("create body", created.JSON201, `{"name":"Ann","tags":["a"],"age":30}`)

	read := must(c.GetDocumentWithResponse(ctx, key, &jsondocs.GetDocumentParams{Pointer: ptr("/tags/0")}))
	expectStatus("read by pointer", read.HTTPResponse, 200)
	expectJSON("read by pointer", read.JSON200, `"a"`)
	expectEqual("read ETag", *read.Headers200.ETag, etag)
	query := must(c.GetDocumentWithResponse(ctx, key, &jsondocs.GetDocumentParams{Jsonpath: ptr("$.name")}))
	expectJSON("JSONPath", query.JSON200, `["Ann"]`)
	notModified := must(c.GetDocumentWithResponse(ctx, key, &jsondocs.GetDocumentParams{IfNoneMatch: &etag}))
	expectStatus("If-None-Match", notModified.HTTPResponse, 304)
	atPath := must(c.GetDocumentAtPathWithResponse(ctx, key, "name", &jsondocs.GetDocumentAtPathParams{}))
	expectJSON("read at path", atPath.JSON200, `"Ann"`)

	head := must(c.HeadDocumentWithResponse(ctx, key, &jsondocs.HeadDocumentParams{}))
	expectStatus("HEAD", head.HTTPResponse, 200)
	expectEqual("HEAD ETag", head.HTTPResponse.Header.Get("ETag"), etag)
	expectStatus("HEAD at path, missing", must(c.HeadDocumentAtPathWithResponse(ctx, key, "nowhere", &jsondocs.HeadDocumentAtPathParams{})).HTTPResponse, 404)

	meta := must(c.DescribeValueWithResponse(ctx, key, &jsondocs.DescribeValueParams{Pointer: ptr("/tags")}))
	expectEqual("meta type", meta.JSON200.Type, jsondocs.ValueDescriptionType("array"))
	expectEqual("meta length", *meta.JSON200.Length, int64(1))
	metaAtPath := must(c.DescribeValueAtPathWithResponse(ctx, key, "name"))
	expectEqual("meta at path type", metaAtPath.JSON200.Type, jsondocs.ValueDescriptionType("string"))
	expectEqual("meta at path length", *metaAtPath.JSON200.Length, int64(3))
	expectStatus("HEAD meta", must(c.HeadDescribeValueWithResponse(ctx, key, &jsondocs.HeadDescribeValueParams{})).HTTPResponse, 200)
	expectStatus("HEAD meta at path", must(c.HeadDescribeValueAtPathWithResponse(ctx, key, "age")).HTTPResponse, 200)

	var merge any = map[string]any{"age": 31}
	merged := must(c.PatchDocumentWithApplicationMergePatchPlusJSONBodyWithResponse(ctx, key, &jsondocs.PatchDocumentParams{}, merge))
	expectStatus("merge patch", merged.HTTPResponse, 200)
	expectJSON("merge patch", merged.JSON200, `{"name":"Ann","tags":["a"],"age":31}`)
	var mergeAsJSON any = map[string]any{"nick": nil}
	expectStatus("merge patch as application/json",
		must(c.PatchDocumentWithResponse(ctx, key, &jsondocs.PatchDocumentParams{}, mergeAsJSON)).HTTPResponse, 200)

	patch := jsondocs.JsonPatch{
		patchOperation(func(o *jsondocs.JsonPatchOperation) error {
			return o.FromAddPatchOperation(jsondocs.AddPatchOperation{Path: "/-", Value: "b"})
		}),
		patchOperation(func(o *jsondocs.JsonPatchOperation) error {
			return o.FromTestPatchOperation(jsondocs.TestPatchOperation{Path: "/0", Value: "a"})
		}),
	}
	patched := must(c.PatchDocumentAtPathWithApplicationJSONPatchPlusJSONBodyWithResponse(ctx, key, "tags", &jsondocs.PatchDocumentAtPathParams{}, patch))
	expectStatus("JSON Patch", patched.HTTPResponse, 200)
	expectJSON("JSON Patch", patched.JSON200, `["a","b"]`)
	mergedAtPath := must(c.PatchDocumentAtPathWithApplicationMergePatchPlusJSONBodyWithResponse(ctx, key, "address", &jsondocs.PatchDocumentAtPathParams{}, merge))
	expectStatus("merge patch at a missing member", mergedAtPath.HTTPResponse, 201)
	var mergeAtPathAsJSON any = map[string]any{"city": "Paris"}
	expectStatus("merge patch at path as application/json",
		must(c.PatchDocumentAtPathWithResponse(ctx, key, "address", &jsondocs.PatchDocumentAtPathParams{}, mergeAtPathAsJSON)).HTTPResponse, 200)

	var city any = "Paris"
	added := must(c.PutDocumentAtPathWithResponse(ctx, key, "city", &jsondocs.PutDocumentAtPathParams{}, city))
	expectStatus("add a member", added.HTTPResponse, 201)
	expectEqual("add a member Location", *added.Headers201.Location, "/docs/gouser:1/city")
	expectStatus("delete at path", must(c.DeleteDocumentAtPathWithResponse(ctx, key, "city", &jsondocs.DeleteDocumentAtPathParams{})).HTTPResponse, 204)
	expectStatus("delete by pointer", must(c.DeleteDocumentWithResponse(ctx, key, &jsondocs.DeleteDocumentParams{Pointer: ptr("/address")})).HTTPResponse, 204)
	final := must(c.GetDocumentWithResponse(ctx, key, &jsondocs.GetDocumentParams{}))
	expectJSON("after the edits", final.JSON200, `{"name":"Ann","tags":["a","b"],"age":31}`)
}

func operations(c *jsondocs.ClientWithResponses) {
	var document any = map[string]any{"n": 1, "s": "ab", "arr": []int{1, 2, 3}, "flag": true, "obj": map[string]int{"x": 1}}
	expectStatus("operations document", must(c.PutDocumentWithResponse(ctx, "goops:1", &jsondocs.PutDocumentParams{}, document)).HTTPResponse, 201)

	var one jsondocs.OperationBody
	must(0, one.FromOperation(operation(func(o *jsondocs.Operation) error {
		return o.FromIncrOperation(jsondocs.IncrOperation{By: 0.1})
	})))
	incremented := must(c.OperateOnDocumentWithResponse(ctx, "goops:1", &jsondocs.OperateOnDocumentParams{Pointer: ptr("/n")}, one))
	expectStatus("one operation", incremented.HTTPResponse, 200)
	// A double on the wire: 0.1 as a float32 would make 1.100000001490116.
	expectJSON("one operation", incremented.JSON200, `{"result":1.1}`)

	list := jsondocs.OperationList{
		operation(func(o *jsondocs.Operation) error {
			return o.FromMultOperation(jsondocs.MultOperation{By: 2, Path: ptr("/n")})
		}),
		operation(func(o *jsondocs.Operation) error {
			return o.FromAppendOperation(jsondocs.AppendOperation{Value: "c", Path: ptr("/s")})
		}),
		operation(func(o *jsondocs.Operation) error {
			return o.FromPushOperation(jsondocs.PushOperation{Values: []any{4}, Path: ptr("/arr")})
		}),
		operation(func(o *jsondocs.Operation) error {
			return o.FromInsertOperation(jsondocs.InsertOperation{Index: 0, Values: []any{0}, Path: ptr("/arr")})
		}),
		operation(func(o *jsondocs.Operation) error { return o.FromPopOperation(jsondocs.PopOperation{Path: ptr("/arr")}) }),
		operation(func(o *jsondocs.Operation) error {
			return o.FromTrimOperation(jsondocs.TrimOperation{Start: 0, Stop: 2, Path: ptr("/arr")})
		}),
		operation(func(o *jsondocs.Operation) error {
			return o.FromIndexOfOperation(jsondocs.IndexOfOperation{Value: 2, Path: ptr("/arr")})
		}),
		operation(func(o *jsondocs.Operation) error {
			return o.FromToggleOperation(jsondocs.ToggleOperation{Path: ptr("/flag")})
		}),
		operation(func(o *jsondocs.Operation) error {
			return o.FromClearOperation(jsondocs.ClearOperation{Path: ptr("/obj")})
		}),
	}
	var many jsondocs.OperationBody
	must(0, many.FromOperationList(list))
	applied := must(c.OperateOnDocumentWithResponse(ctx, "goops:1", &jsondocs.OperateOnDocumentParams{}, many))
	expectStatus("a list of operations", applied.HTTPResponse, 200)
	expectJSON("a list of operations", applied.JSON200, `{"results":[2.2,3,4,5,4,3,2,false,{}]}`)
	final := must(c.GetDocumentWithResponse(ctx, "goops:1", &jsondocs.GetDocumentParams{}))
	expectJSON("after the operations", final.JSON200, `{"n":2.2,"s":"abc","arr":[0,1,2],"flag":false,"obj":{}}`)
}

func problems(c *jsondocs.ClientWithResponses) {
	missing := must(c.GetDocumentWithResponse(ctx, "gonobody", &jsondocs.GetDocumentParams{}))
	expectStatus("missing", missing.HTTPResponse, 404)
	expectProblem("missing", missing.HTTPResponse, missing.ApplicationproblemJSON404, "DOCS_ERR_NOT_FOUND")
	var body any = map[string]any{}
	stale := must(c.PutDocumentWithResponse(ctx, key, &jsondocs.PutDocumentParams{IfMatch: ptr(`"1"`)}, body))
	expectStatus("stale If-Match", stale.HTTPResponse, 412)
	expectProblem("stale If-Match", stale.HTTPResponse, stale.ApplicationproblemJSON412, "DOCS_ERR_PRECONDITION_FAILED")
	var wrong jsondocs.OperationBody
	must(0, wrong.FromOperation(operation(func(o *jsondocs.Operation) error {
		return o.FromIncrOperation(jsondocs.IncrOperation{By: 1})
	})))
	onString := must(c.OperateOnDocumentAtPathWithResponse(ctx, key, "name", &jsondocs.OperateOnDocumentAtPathParams{}, wrong))
	expectStatus("incr on a string", onString.HTTPResponse, 409)
	expectProblem("incr on a string", onString.HTTPResponse, onString.ApplicationproblemJSON409, "DOCS_ERR_VALUE_TYPE")
}

func listingBatchesExpiry(c *jsondocs.ClientWithResponses) {
	var keys []string
	params := &jsondocs.ListDocumentsParams{Prefix: ptr("gouser:"), Limit: ptr(int32(1000))}
	for page := 0; page < 10000; page++ {
		listed := must(c.ListDocumentsWithResponse(ctx, params))
		expectStatus("list", listed.HTTPResponse, 200)
		keys = append(keys, listed.JSON200.Keys...)
		if listed.JSON200.Cursor == nil {
			break
		}
		params.Cursor = listed.JSON200.Cursor
	}
	expectJSON("listed keys", keys, `["gouser:1"]`)
	expectStatus("HEAD list", must(c.HeadListDocumentsWithResponse(ctx, &jsondocs.HeadListDocumentsParams{Prefix: ptr("gouser:")})).HTTPResponse, 200)

	written := must(c.WriteBatchWithResponse(ctx, jsondocs.BatchWriteBody{Items: []jsondocs.BatchWriteItem{
		{Key: "gouser:2", Value: map[string]any{"name": "Bo"}, IfNoneMatch: ptr("*"), Ttl: ptr(120.5)},
		{Key: key, Value: map[string]any{}, IfMatch: ptr(`"1"`)},
	}}))
	expectStatus("batch write", written.HTTPResponse, 200)
	expectEqual("batch write item 0", written.JSON200.Items[0].Status, jsondocs.BatchWriteResultStatus(201))
	if !etagPattern.MatchString(*written.JSON200.Items[0].Etag) {
		fail("batch write ETag %q", *written.JSON200.Items[0].Etag)
	}
	expectEqual("batch write item 1", written.JSON200.Items[1].Status, jsondocs.BatchWriteResultStatus(412))
	read := must(c.ReadBatchWithResponse(ctx, jsondocs.BatchReadBody{Keys: []string{key, "gouser:2", "gouser:3"}, Pointer: ptr("/name")}))
	expectStatus("batch read", read.HTTPResponse, 200)
	var statuses []int
	var values []any
	for _, item := range read.JSON200.Items {
		statuses = append(statuses, int(item.Status))
		values = append(values, item.Value)
	}
	expectJSON("batch read statuses", statuses, `[200,200,404]`)
	expectJSON("batch read values", values, `["Ann","Bo",null]`)
	if expires := read.JSON200.Items[1].ExpiresIn; expires == nil || *expires < 119 || *expires > 121 {
		fail("batch read expiresIn %v", expires)
	}

	set := must(c.PutTtlWithResponse(ctx, "gouser:2", &jsondocs.PutTtlParams{}, jsondocs.TtlBody{Ttl: 60}))
	expectStatus("set TTL", set.HTTPResponse, 200)
	if set.JSON200.Ttl == nil || *set.JSON200.Ttl <= 59 || *set.JSON200.Ttl > 60 {
		fail("set TTL: %v", set.JSON200.Ttl)
	}
	ttl := must(c.GetTtlWithResponse(ctx, "gouser:2"))
	expectEqual("Expires-In", *ttl.Headers200.ExpiresIn, "60")
	expectStatus("HEAD TTL", must(c.HeadTtlWithResponse(ctx, "gouser:2")).HTTPResponse, 200)
	expectStatus("remove TTL", must(c.DeleteTtlWithResponse(ctx, "gouser:2", &jsondocs.DeleteTtlParams{})).HTTPResponse, 204)
	none := must(c.GetTtlWithResponse(ctx, "gouser:2"))
	if none.JSON200.Ttl != nil {
		fail("TTL after removal: %v", *none.JSON200.Ttl)
	}
}

func served(c *jsondocs.ClientWithResponses, anonymous *jsondocs.ClientWithResponses) {
	options := must(c.OptionsDocumentWithResponse(ctx, key))
	expectStatus("OPTIONS", options.HTTPResponse, 204)
	expectEqual("Allow", options.HTTPResponse.Header.Get("Allow"), "GET, HEAD, PUT, PATCH, POST, DELETE")
	expectStatus("OPTIONS at path", must(c.OptionsDocumentAtPathWithResponse(ctx, key, "name")).HTTPResponse, 204)

	health := must(c.GetHealthWithResponse(ctx))
	expectJSON("health", health.JSON200, `{"status":"ok"}`)
	expectStatus("HEAD health", must(c.HeadHealthWithResponse(ctx)).HTTPResponse, 200)
	livez := must(c.GetLivezWithResponse(ctx))
	expectJSON("livez", livez.JSON200, `{"status":"ok"}`)
	expectStatus("HEAD livez", must(c.HeadLivezWithResponse(ctx)).HTTPResponse, 200)
	readyz := must(c.GetReadyzWithResponse(ctx))
	expectJSON("readyz", readyz.JSON200, `{"status":"ok"}`)
	expectStatus("HEAD readyz", must(c.HeadReadyzWithResponse(ctx)).HTTPResponse, 200)

	metrics := must(c.GetMetricsWithResponse(ctx))
	expectStatus("metrics", metrics.HTTPResponse, 200)
	if !strings.Contains(string(metrics.Body), "\njsondocs_http_request_duration_seconds_count{") {
		fail("metrics: no request durations in %d bytes", len(metrics.Body))
	}
	expectStatus("HEAD metrics", must(c.HeadMetricsWithResponse(ctx)).HTTPResponse, 200)
	expectStatus("metrics without the token", must(anonymous.GetMetricsWithResponse(ctx)).HTTPResponse, 401)

	description := must(c.GetOpenApiJsonWithResponse(ctx))
	expectEqual("openapi.json version", (*description.JSON200)["openapi"], any("3.1.0"))
	yaml := must(c.GetOpenApiYamlWithResponse(ctx))
	expectEqual("openapi.yaml version", (*yaml.YAML200)["openapi"], any("3.1.0"))
	expectStatus("HEAD openapi.json", must(c.HeadOpenApiJsonWithResponse(ctx)).HTTPResponse, 200)
	expectStatus("HEAD openapi.yaml", must(c.HeadOpenApiYamlWithResponse(ctx)).HTTPResponse, 200)
}

func schemas(c *jsondocs.ClientWithResponses) {
	const collection = "goorders"
	var schema jsondocs.CollectionSchema
	must(0, schema.FromCollectionSchema0(jsondocs.CollectionSchema0{
		"type": "object", "properties": map[string]any{"total": map[string]any{"type": "integer", "minimum": 0}}, "required": []string{"total"},
	}))
	registered := must(c.PutSchemaWithApplicationSchemaPlusJSONBodyWithResponse(ctx, collection, &jsondocs.PutSchemaParams{}, schema))
	expectStatus("register", registered.HTTPResponse, 201)
	expectEqual("register Location", *registered.Headers201.Location, "/schemas/goorders")
	expectEqual("register collection", registered.JSON201.Collection, collection)
	expectJSON("register report", registered.JSON201.ExistingDocuments, `{"checked":0,"violating":0,"complete":true,"examples":[]}`)
	etag := *registered.Headers201.ETag
	expectEqual("register ETag", registered.JSON201.Etag, etag)

	read := must(c.GetSchemaWithResponse(ctx, collection, &jsondocs.GetSchemaParams{}))
	expectJSON("read schema", must(read.ApplicationschemaJSON200.AsCollectionSchema0()),
		`{"type":"object","properties":{"total":{"type":"integer","minimum":0}},"required":["total"]}`)
	expectEqual("HEAD schema ETag", must(c.HeadSchemaWithResponse(ctx, collection, &jsondocs.HeadSchemaParams{})).HTTPResponse.Header.Get("ETag"), etag)
	listed := must(c.ListSchemasWithResponse(ctx))
	expectJSON("list schemas", listed.JSON200, `{"collections":[{"collection":"goorders","etag":`+string(must(json.Marshal(etag)))+`}]}`)
	expectStatus("HEAD list schemas", must(c.HeadListSchemasWithResponse(ctx)).HTTPResponse, 200)

	var order any = map[string]any{"total": -1}
	rejected := must(c.PutDocumentWithResponse(ctx, "goorders:1", &jsondocs.PutDocumentParams{}, order))
	expectStatus("invalid document", rejected.HTTPResponse, 422)
	expectProblem("invalid document", rejected.HTTPResponse, rejected.ApplicationproblemJSON422, "DOCS_ERR_SCHEMA_VIOLATION")
	expectEqual("violation pointer", (*rejected.ApplicationproblemJSON422.Errors)[0].Pointer, "/total")

	var anything jsondocs.CollectionSchema
	must(0, anything.FromCollectionSchema1(true))
	replaced := must(c.PutSchemaWithResponse(ctx, collection, &jsondocs.PutSchemaParams{IfMatch: &etag}, anything))
	expectStatus("replace with true", replaced.HTTPResponse, 200)
	expectEqual("read true", must(must(c.GetSchemaWithResponse(ctx, collection, &jsondocs.GetSchemaParams{})).ApplicationschemaJSON200.AsCollectionSchema1()), true)
	expectStatus("valid now", must(c.PutDocumentWithResponse(ctx, "goorders:1", &jsondocs.PutDocumentParams{}, order)).HTTPResponse, 201)

	removed := must(c.DeleteSchemaWithResponse(ctx, collection, &jsondocs.DeleteSchemaParams{IfMatch: replaced.Headers200.ETag}))
	expectStatus("remove schema", removed.HTTPResponse, 204)
	expectStatus("removed", must(c.GetSchemaWithResponse(ctx, collection, &jsondocs.GetSchemaParams{})).HTTPResponse, 404)
}

func queries(c *jsondocs.ClientWithResponses) {
	const collection = "goproducts"
	for id, price := range []float64{9.5, 12, 4} {
		var product any = map[string]any{"price": price, "tags": []string{"sale"}}
		expectStatus("product", must(c.PutDocumentWithResponse(ctx, fmt.Sprintf("goproducts:%d", id+1), &jsondocs.PutDocumentParams{}, product)).HTTPResponse, 201)
	}
	fields := []jsondocs.IndexField{{Pointer: "/price", Type: "number", Sortable: ptr(true)}, {Pointer: "/tags", Type: "tag"}}
	declared := must(c.PutIndexWithResponse(ctx, collection, jsondocs.IndexDefinition{Fields: fields}))
	state := declared.JSON202
	switch declared.HTTPResponse.StatusCode {
	case 202:
		expectEqual("declare index state", state.State, jsondocs.IndexStateState("building"))
		expectEqual("declare index Location", *declared.Headers202.Location, "/collections/goproducts/index")
	case 200:
		state = declared.JSON200
		expectEqual("declare index state", state.State, jsondocs.IndexStateState("ready"))
	default:
		fail("declare index: status %d, expected 200 or 202", declared.HTTPResponse.StatusCode)
	}
	expectEqual("declare index collection", state.Collection, collection)
	expectJSON("declare index fields", state.Fields, `[{"pointer":"/price","type":"number","sortable":true},{"pointer":"/tags","type":"tag"}]`)

	// The documents already there are indexed in the background: read the state until ready, bounded in time
	// (at least once, whatever the declaration answered).
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		read := must(c.GetIndexWithResponse(ctx, collection))
		expectStatus("read index", read.HTTPResponse, 200)
		if state = read.JSON200; state.State == "ready" {
			break
		}
		if time.Now().After(deadline) {
			fail("index not ready in 10 s: %s", must(json.Marshal(state)))
		}
	}
	expectJSON("ready index", state, `{"collection":"goproducts","fields":[{"pointer":"/price","type":"number","sortable":true},{"pointer":"/tags","type":"tag"}],"state":"ready","progress":1,"documents":3,"failures":0}`)
	expectStatus("HEAD index", must(c.HeadIndexWithResponse(ctx, collection)).HTTPResponse, 200)

	desc := jsondocs.QuerySortOrder("desc")
	found := must(c.QueryCollectionWithResponse(ctx, collection, &jsondocs.QueryCollectionParams{Prefer: ptr("count=exact")}, jsondocs.QueryRequest{
		Filter: &map[string]any{"/tags": "sale", "/price": map[string]any{"$lt": 10}},
		Sort:   &[]jsondocs.QuerySort{{Pointer: "/price", Order: &desc}},
		Fields: &[]string{"/price"},
		Limit:  ptr(int32(20)),
	}))
	expectStatus("query", found.HTTPResponse, 200)
	expectEqual("Preference-Applied", *found.Headers200.PreferenceApplied, "count=exact")
	var keys []string
	var values []any
	for _, item := range found.JSON200.Items {
		if !etagPattern.MatchString(item.Etag) {
			fail("query item ETag %q", item.Etag)
		}
		keys = append(keys, item.Key)
		values = append(values, item.Value)
	}
	expectJSON("query keys", keys, `["goproducts:1","goproducts:3"]`)
	expectJSON("query values", values, `[{"/price":9.5},{"/price":4}]`)
	if found.JSON200.Cursor != nil {
		fail("query cursor %q on the last page", *found.JSON200.Cursor)
	}
	expectEqual("query count", *found.JSON200.Count, int64(2))

	// The short GET form of the same query: its pointer parameters are the conditions map, sent form-exploded.
	short := &jsondocs.GetCollectionQueryParams{
		Conditions: &map[string]string{"/tags": "sale", "/price": "lt:10"},
		Sort:       ptr("-/price"),
		Fields:     ptr("/price"),
		Limit:      ptr(int32(20)),
		Prefer:     ptr("count=exact"),
	}
	shortFound := must(c.GetCollectionQueryWithResponse(ctx, collection, short))
	expectStatus("short query", shortFound.HTTPResponse, 200)
	expectEqual("short query Preference-Applied", *shortFound.Headers200.PreferenceApplied, "count=exact")
	expectJSON("short query page", shortFound.JSON200, string(must(json.Marshal(found.JSON200))))
	shortHead := must(c.HeadCollectionQueryWithResponse(ctx, collection, &jsondocs.HeadCollectionQueryParams{
		Conditions: short.Conditions, Sort: short.Sort, Fields: short.Fields, Limit: short.Limit,
	}))
	expectStatus("HEAD short query", shortHead.HTTPResponse, 200)

	var aggregate jsondocs.AggregateRequest
	if err := json.Unmarshal([]byte(`{"groupBy":["/tags"],"metrics":{"n":{"$count":{}},"total":{"$sum":"/price"},"lo":{"$min":"/price"}},"sort":[{"metric":"n","order":"desc"}]}`), &aggregate); err != nil {
		fail("aggregate request: %v", err)
	}
	grouped := must(c.AggregateCollectionWithResponse(ctx, collection, aggregate))
	expectStatus("aggregate", grouped.HTTPResponse, 200)
	expectJSON("aggregate groups", grouped.JSON200, `{"groups":[{"key":{"/tags":"sale"},"lo":4,"n":3,"total":25.5}],"truncated":false}`)

	expectStatus("remove index", must(c.DeleteIndexWithResponse(ctx, collection)).HTTPResponse, 204)
	removed := must(c.GetIndexWithResponse(ctx, collection))
	expectStatus("removed index", removed.HTTPResponse, 404)
	expectProblem("removed index", removed.HTTPResponse, removed.ApplicationproblemJSON404, "DOCS_ERR_NOT_FOUND")
}

func tokens(c *jsondocs.ClientWithResponses) {
	label := "go reader"
	ttl := 60.0
	created := must(c.CreateTokenWithResponse(ctx, jsondocs.TokenRequest{
		Scopes: jsondocs.Scopes{{Prefix: "gouser:", Rights: []jsondocs.ScopeRights{jsondocs.Read}}}, Ttl: &ttl, Label: &label,
	}))
	expectStatus("create token", created.HTTPResponse, 201)
	if !strings.HasPrefix(created.JSON201.Token, "jdt.") {
		fail("token %q", created.JSON201.Token)
	}
	listed := must(c.ListTokensWithResponse(ctx))
	expectStatus("list tokens", listed.HTTPResponse, 200)
	expectEqual("listed token", listed.JSON200.Tokens[0].Id, created.JSON201.Id)
	expectEqual("listed label", *listed.JSON200.Tokens[0].Label, label)
	expectStatus("HEAD tokens", must(c.HeadListTokensWithResponse(ctx)).HTTPResponse, 200)
	expectStatus("revoke token", must(c.RevokeTokenWithResponse(ctx, created.JSON201.Id)).HTTPResponse, 204)
	expectStatus("revoke again", must(c.RevokeTokenWithResponse(ctx, created.JSON201.Id)).HTTPResponse, 404)
	for _, request := range []jsondocs.StreamTicketRequest{{Key: ptr("gouser:1")}, {Prefix: ptr("gouser:")}} {
		ticket := must(c.CreateStreamTicketWithResponse(ctx, request))
		expectStatus("stream ticket", ticket.HTTPResponse, 201)
		if !strings.HasPrefix(ticket.JSON201.Ticket, "jst.") {
			fail("ticket %q", ticket.JSON201.Ticket)
		}
	}
}
