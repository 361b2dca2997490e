package main

import "github.com/spf13/cobra"

func newEquivCmd() *cobra.Command {
	return &cobra.Command{Use: "equiv", Hidden: true}
}
