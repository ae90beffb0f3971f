package mutant

// Mutants of the reference server's resource templates, resource
// subscriptions, list-change notifications, template completions and log
// messages, and the permitted variant of its answer for an unknown
// resource (the server.resources.*, server.list-changed.*,
// server.completion.* and server.logging.* checks).
const (
	TemplateWithoutName          Name = "template-without-name"
	SubscribeRefused             Name = "subscribe-refused"
	SubscribeUndeclaredServed    Name = "subscribe-undeclared-served"
	ListChangedUndeclared        Name = "list-changed-undeclared"
	TemplateCompletionTotalShort Name = "template-completion-total-short"
	LogLoggerNotString           Name = "log-logger-not-string"
)

// NotFoundInvalidParams is a permitted variant of the reference server: it
// answers a legacy resources/read of an unknown URI with -32602.
const NotFoundInvalidParams Name = "not-found-invalid-params"

func init() {
	registerProtocol(
		Mutant{TemplateWithoutName, "server", "lists its resource template without the name every version's ResourceTemplate requires (JR-01, RS-02)"},
		Mutant{SubscribeRefused, "server", "declares resources.subscribe but answers resources/subscribe with -32601 (RS-01, RS-04)"},
		Mutant{SubscribeUndeclaredServed, "server", "declares resources without subscribe but serves resources/subscribe (RS-01)"},
		Mutant{ListChangedUndeclared, "server", "sends notifications/resources/list_changed while answering resources/list, though it declares no listChanged (LC-11)"},
		Mutant{TemplateCompletionTotalShort, "server", "answers completion/complete of a resource template variable with a total below the number of values it returns (CP-03)"},
		Mutant{LogLoggerNotString, "server", "sends notifications/message with a logger that is a number, not a string (LG-07)"},
	)
	variants = append(variants, Variant{NotFoundInvalidParams, "server", "any", []string{"RS-05", "JR-23"},
		"answers a legacy resources/read of a URI it has no resource at with -32602 (Invalid params) instead of -32002 (RS-05 asks -32002 as a SHOULD; JR-23 gives -32602 for bad parameters)"})
}
