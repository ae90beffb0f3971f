module github.com/mcpconform/mcpconform/peers/adapterhost

go 1.26
