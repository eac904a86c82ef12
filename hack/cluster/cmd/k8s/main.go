// Command k8s is a multi-call ("hyperkube" style) binary holding the local
// control plane used by httpd24's tests: kube-apiserver,
// kube-controller-manager, kube-scheduler, kubectl and etcd, all from one
// pinned Kubernetes release (see ../../go.mod). One binary means one link
// step instead of five, which matters on a 2-core machine.
//
// Dispatch is on the basename of argv[0] (symlinks kube-apiserver -> k8s,
// ...) or, when called as "k8s", on the first argument:
//
//	k8s kube-apiserver --help
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	_ "time/tzdata" // for CronJob time zone support

	"go.etcd.io/etcd/server/v3/etcdmain"
	_ "k8s.io/client-go/plugin/pkg/client/auth"
	"k8s.io/component-base/cli"
	"k8s.io/component-base/logs"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	kubectlcmd "k8s.io/kubectl/pkg/cmd"
	kubectlutil "k8s.io/kubectl/pkg/cmd/util"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
)

var commands = map[string]func(){
	"kube-apiserver": func() {
		os.Exit(cli.Run(apiserver.NewAPIServerCommand()))
	},
	"kube-controller-manager": func() {
		os.Exit(cli.Run(controllermanager.NewControllerManagerCommand()))
	},
	"kube-scheduler": func() {
		os.Exit(cli.Run(scheduler.NewSchedulerCommand()))
	},
	"kubectl": func() {
		logs.GlogSetter(kubectlcmd.GetLogVerbosity(os.Args)) //nolint:errcheck
		command := kubectlcmd.NewDefaultKubectlCommand()
		if err := cli.RunNoErrOutput(command); err != nil {
			kubectlutil.CheckErr(err)
		}
	},
	"etcd": func() {
		etcdmain.Main(os.Args)
	},
}

func usage() {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(os.Stderr, "usage: k8s <%s> [args...]\n(or call through a symlink of that name)\n", strings.Join(names, "|"))
	os.Exit(2)
}

func main() {
	name := filepath.Base(os.Args[0])
	if _, ok := commands[name]; !ok {
		if len(os.Args) < 2 {
			usage()
		}
		name = os.Args[1]
		os.Args = os.Args[1:]
	}
	run, ok := commands[name]
	if !ok {
		usage()
	}
	run()
}
