//go:build v1beta1

package main

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	clusterv1 "sigs.k8s.io/cluster-api/api/v1beta1"
	bootstrapv1 "sigs.k8s.io/cluster-api/bootstrap/kubeadm/api/v1beta1"
	bootstrapadmission "sigs.k8s.io/cluster-api/bootstrap/kubeadm/webhooks"
	controlplanev1 "sigs.k8s.io/cluster-api/controlplane/kubeadm/api/v1beta1"
	controlplaneadmission "sigs.k8s.io/cluster-api/controlplane/kubeadm/webhooks"
	expv1 "sigs.k8s.io/cluster-api/exp/api/v1beta1"
	ipamv1alpha1 "sigs.k8s.io/cluster-api/exp/ipam/api/v1alpha1"
	ipamv1 "sigs.k8s.io/cluster-api/exp/ipam/api/v1beta1"
	expipamwebhooks "sigs.k8s.io/cluster-api/exp/ipam/webhooks"
	runtimev1 "sigs.k8s.io/cluster-api/exp/runtime/api/v1alpha1"
	expwebhooks "sigs.k8s.io/cluster-api/exp/webhooks"
	coreadmission "sigs.k8s.io/cluster-api/webhooks"
	ctrl "sigs.k8s.io/controller-runtime"
)

// apiTypes are the API groups the three controllers' main.go add to their
// schemes (the union of the three), of the releases before v1.11, which
// store v1beta1 (go build -tags v1beta1): their v1alpha3 and v1alpha4
// packages are internal, and only served to convert, which objects
// written as v1beta1 never need.
var apiTypes = []func(*runtime.Scheme) error{
	clusterv1.AddToScheme, expv1.AddToScheme, addonsAddToScheme,
	runtimev1.AddToScheme, ipamv1alpha1.AddToScheme, ipamv1.AddToScheme,
	controlplanev1.AddToScheme, bootstrapv1.AddToScheme,
}

// hook is a webhook type the controllers set up.
type hook struct {
	name  string
	setup interface{ SetupWebhookWithManager(ctrl.Manager) error }
}

// setupWebhooks registers the webhooks of the core's, the kubeadm control
// plane's and the kubeadm bootstrap provider's setupWebhooks, in their
// order, with what each gives them (the core's Cluster gets no cluster
// cache: only its update validation reads workload clusters), from the
// exported wrappers of the releases before v1.11 (webhooks, exp/webhooks,
// exp/ipam/webhooks, controlplane/kubeadm/webhooks,
// bootstrap/kubeadm/webhooks) over their internal/webhooks; the
// ClusterResourceSet's and MachineDrainRule's from where the release has
// them (v1beta1_*.go). The ExtensionConfig webhook has no exported wrapper
// before v1.11 (internal/webhooks/runtime): not served, as the learner's
// inputs are namespaced and an ExtensionConfig is cluster-scoped.
func setupWebhooks(mgr ctrl.Manager) error {
	hooks := []hook{
		{"ClusterClass", &coreadmission.ClusterClass{Client: mgr.GetClient()}},
		{"Cluster", &coreadmission.Cluster{Client: mgr.GetClient()}},
		{"Machine", &coreadmission.Machine{}},
		{"MachineSet", &coreadmission.MachineSet{}},
		{"MachineDeployment", &coreadmission.MachineDeployment{}},
	}
	hooks = append(hooks, drainRuleHooks...)
	hooks = append(hooks, hook{"MachinePool", &expwebhooks.MachinePool{}})
	hooks = append(hooks, addonsHooks...)
	hooks = append(hooks, []hook{
		{"MachineHealthCheck", &coreadmission.MachineHealthCheck{}},
		{"IPAddress", &expipamwebhooks.IPAddress{Client: mgr.GetAPIReader()}},
		{"IPAddressClaim", &expipamwebhooks.IPAddressClaim{}},
		{"KubeadmControlPlane", &controlplaneadmission.KubeadmControlPlane{}},
		{"KubeadmControlPlane scale", &controlplaneadmission.ScaleValidator{Client: mgr.GetClient()}},
		{"KubeadmControlPlaneTemplate", &controlplaneadmission.KubeadmControlPlaneTemplate{}},
		{"KubeadmConfig", &bootstrapadmission.KubeadmConfig{}},
		{"KubeadmConfigTemplate", &bootstrapadmission.KubeadmConfigTemplate{}},
	}...)
	for _, h := range hooks {
		if err := h.setup.SetupWebhookWithManager(mgr); err != nil {
			return fmt.Errorf("webhook %s: %v", h.name, err)
		}
	}
	return nil
}
