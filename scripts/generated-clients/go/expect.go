// Helpers of the scenario in main.go: the recording transport and the expectations.
package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"strings"

	"jsondocs/generated-clients/jsondocs"
)

// recorder sends requests with the default client and lists each as "METHOD /path".
type recorder struct{ lines []string }

func (r *recorder) Do(req *http.Request) (*http.Response, error) {
	r.lines = append(r.lines, req.Method+" "+req.URL.EscapedPath())
	return http.DefaultClient.Do(req)
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "go client: "+format+"\n", args...)
	os.Exit(1)
}

func must[T any](value T, err error) T {
	if err != nil {
		fail("%v", err)
	}
	return value
}

func expectStatus(what string, response *http.Response, status int) {
	if response.StatusCode != status {
		fail("%s: status %d, expected %d", what, response.StatusCode, status)
	}
}

// expectJSON compares a decoded value with the JSON text expected, as JSON values.
func expectJSON(what string, got any, want string) {
	var wanted, normalised any
	must(0, json.Unmarshal([]byte(want), &wanted))
	must(0, json.Unmarshal(must(json.Marshal(got)), &normalised))
	if !reflect.DeepEqual(normalised, wanted) {
		fail("%s: got %s, expected %s", what, must(json.Marshal(got)), want)
	}
}

func expectEqual[T comparable](what string, got, want T) {
	if got != want {
		fail("%s: got %v, expected %v", what, got, want)
	}
}

func expectProblem(what string, response *http.Response, problem *jsondocs.Problem, code jsondocs.ProblemCode) {
	if !strings.HasPrefix(response.Header.Get("Content-Type"), "application/problem+json") || problem == nil {
		fail("%s: not a problem: %s", what, response.Header.Get("Content-Type"))
	}
	expectEqual(what+" code", problem.Code, code)
	expectEqual(what+" status", int(problem.Status), response.StatusCode)
}

func ptr[T any](value T) *T { return &value }

func operation(from func(*jsondocs.Operation) error) jsondocs.Operation {
	var op jsondocs.Operation
	must(0, from(&op))
	return op
}

func patchOperation(from func(*jsondocs.JsonPatchOperation) error) jsondocs.JsonPatchOperation {
	var op jsondocs.JsonPatchOperation
	must(0, from(&op))
	return op
}
