module github.com/mcpconform/mcpconform/peers/peerhost

go 1.26
